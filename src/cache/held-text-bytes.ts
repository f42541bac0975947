/**
 * About the bytes V8 holds `text` in: one a character when every character is ASCII (its UTF-8
 * length says so, in one pass), else two, what a string with any character past Latin-1 takes
 * (an upper bound for the Latin-1 strings V8 also keeps at one byte).
 */
export function heldTextBytes(text: string): number {
  return Buffer.byteLength(text, 'utf8') === text.length ? text.length : 2 * text.length;
}
