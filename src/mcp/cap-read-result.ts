import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { textBytesOf } from '../convert/text-bytes.js';

/** What a byte cap cut from one content item. */
export interface TruncatedContent {
  /** Position in `contents`. */
  readonly index: number;
  readonly uri: string;
  readonly mimeType?: string;
  readonly originalBytes: number;
  readonly keptBytes: number;
}

/** Present on a read result only when the byte cap bit. */
export interface ReadTruncation {
  readonly maxBytes: number;
  readonly originalBytes: number;
  readonly keptBytes: number;
  readonly items: readonly TruncatedContent[];
}

export type CappedReadResult = ReadResourceResult & {
  readonly truncation?: ReadTruncation;
  /** How many occurrences of the server's credentials were removed from the contents. */
  readonly redactions?: number;
};

/**
 * Keeps every content item (uri, mimeType, annotations, _meta) but at most `maxBytes` of
 * content in all, in order. Text is cut on a UTF-8 character boundary; a blob that does not
 * fit whole is emptied, because half an image or archive is garbage, not a shorter one.
 * What was cut is reported in `truncation`, never silently.
 */
export function capReadResult(
  result: ReadResourceResult & { readonly redactions?: number },
  maxBytes: number,
): CappedReadResult {
  // Most reads fit: those are returned as they are, with nothing allocated.
  if (totalBytes(result.contents) <= maxBytes) return result;
  let remaining = maxBytes;
  let originalBytes = 0;
  const items: TruncatedContent[] = [];
  const contents = result.contents.map((item, index) => {
    const bytes = itemBytes(item);
    originalBytes += bytes;
    if (bytes <= remaining) {
      remaining -= bytes;
      return item;
    }
    const kept = 'text' in item ? cutUtf8(item.text, remaining) : '';
    const keptBytes = Buffer.byteLength(kept, 'utf8');
    remaining -= keptBytes;
    items.push({
      index,
      uri: item.uri,
      ...(item.mimeType !== undefined && { mimeType: item.mimeType }),
      originalBytes: bytes,
      keptBytes: 'text' in item ? keptBytes : 0,
    });
    return 'text' in item ? { ...item, text: kept } : { ...item, blob: '' };
  });
  if (items.length === 0) return result;
  return {
    ...result,
    contents,
    truncation: { maxBytes, originalBytes, keptBytes: maxBytes - remaining, items },
  };
}

/** Bytes a base64 string decodes to. */
export function base64Bytes(blob: string): number {
  const padding = blob.endsWith('==') ? 2 : blob.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((blob.length * 3) / 4) - padding);
}

// --- Internal helpers ---

// A binding's cap applies to a cached read every turn: each text item's size is measured once
// (textBytesOf keeps it with the item), so the total is a sum over a few items, not a memo.
function totalBytes(contents: ReadResourceResult['contents']): number {
  let total = 0;
  for (const item of contents) total += itemBytes(item);
  return total;
}

/** What one item holds: text as UTF-8, a blob as the bytes it decodes to. */
function itemBytes(item: ReadResourceResult['contents'][number]): number {
  return 'text' in item ? textBytesOf(item) : base64Bytes(item.blob);
}

function cutUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  let end = Math.min(maxBytes, bytes.length);
  // Step back over continuation bytes (10xxxxxx) so no character is split.
  while (end > 0 && end < bytes.length && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}
