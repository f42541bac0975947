export interface TextChunk {
  readonly start: number;
  readonly end: number;
}

// Chunks of several hundred characters (~100–300 tokens): small enough to pick precisely, large
// enough that BM25 sees context and that a gap's marker (~16 tokens) is a small part of what a
// cut shows. At 320 characters (~66 tokens) a cut of scattered matches spent a fifth of its
// share on markers, and each turn's cuts did twice the work (hostLike: 290 gaps a turn, 170 at 640).
const targetChars = 640;
const maxChars = 1_200;

/**
 * Splits text into consecutive chunks that cover it exactly: paragraphs (with the blank lines
 * after them) when they are near the target size, whole lines otherwise, and a line longer than `maxChars` at
 * spaces (or hard, outside surrogate pairs).
 */
export function splitIntoChunks(text: string, from = 0): TextChunk[] {
  const chunks: TextChunk[] = [];
  let start = from;
  let position = from;
  // The next line end at or after `position`, found once: searched again from each chunk of a
  // long line, a text without newlines was scanned to its end once per chunk (5 MB: seconds).
  let newline = text.indexOf('\n', from);
  while (position < text.length) {
    if (newline !== -1 && newline < position) newline = text.indexOf('\n', position);
    const lineEnd = newline === -1 ? text.length : newline + 1;
    if (lineEnd - start > maxChars) {
      if (position > start) {
        chunks.push({ start, end: position });
        start = position;
        continue;
      }
      const cut = cutLongLine(text, start, start + maxChars);
      chunks.push({ start, end: cut });
      start = cut;
      position = cut;
      continue;
    }
    position = lineEnd;
    const blank = text.charCodeAt(position) === 0x0a || position >= text.length;
    if (position - start >= targetChars || (blank && position - start >= targetChars / 3)) {
      // A paragraph takes the blank lines after it: the next chunk starts with its text, so a
      // marker before it ends on a piece boundary (find-safe-boundary.ts) and counts on its own.
      while (text.charCodeAt(position) === 0x0a) position++;
      chunks.push({ start, end: position });
      start = position;
    }
  }
  if (start < text.length) chunks.push({ start, end: text.length });
  return chunks;
}

// --- Internal helpers ---

/**
 * After the last space at or before `limit` when it lies past the middle of the chunk, else at
 * `limit`. Only that far back is looked at (lastIndexOf would scan a line without spaces back
 * to the text's start, once per chunk).
 */
function cutLongLine(text: string, start: number, limit: number): number {
  for (let space = limit; space > start + maxChars / 2; space--)
    if (text.charCodeAt(space) === 0x20) return space + 1;
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit + 1 : limit;
}
