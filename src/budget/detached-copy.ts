// V8 makes a substring of 13 characters or more a view of the string it was cut from.
const viewFromChars = 13;

/**
 * `text` as a string of its own, for a cache that keeps it: a substring of 13 characters or more
 * is otherwise a view that holds the whole string it was cut from (a resource's body) alive for
 * as long as the cache keeps the substring, and a string joined from parts is a tree of them (a
 * frame cost's key built from a template: about 220 bytes more than the flat key). The copy goes
 * through UTF-16 code units, so it equals `text` whatever it holds (a lone surrogate too); V8
 * keeps it at one byte a character where it can.
 */
export function detachedCopy(text: string): string {
  return text.length < viewFromChars ? text : Buffer.from(text, 'utf16le').toString('utf16le');
}
