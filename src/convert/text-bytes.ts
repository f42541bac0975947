/**
 * The UTF-8 size of a content item's text, measured once per item: one read passes the byte cap,
 * the audit, the content cache and conversion, and each needs the size of the same body (64 KB
 * and more). The item is the key, its text the check: an item whose text was replaced is measured
 * again.
 */
export function textBytesOf(item: { readonly text: string }): number {
  const known = measured.get(item);
  // The same string is one pointer comparison; an equal copy compares its characters, still exact.
  if (known !== undefined && known.text === item.text) return known.bytes;
  const bytes = Buffer.byteLength(item.text, 'utf8');
  measured.set(item, { text: item.text, bytes });
  return bytes;
}

// --- Internal helpers ---

// Held as long as the item is: a cached read's items live with the cache entry, no longer.
const measured = new WeakMap<object, { readonly text: string; readonly bytes: number }>();
