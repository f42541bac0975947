/** Synchronous tokens of one piece of text (a tokenizer's raw primitive, e.g. `encode_ordinary`). */
export type EncodePiece = (piece: string) => Uint32Array;

/**
 * Runs longer than this many characters without a piece boundary are split for counting.
 * BPE is quadratic in the length of one pre-tokenized piece (64 KB of "a" takes ~2.8 s); at 512
 * characters a run costs about what ordinary text does. A split can shift the count by about one
 * token (measured: 0 on runs of one letter or emoji, +3 on 3,900 characters of CJK split 7
 * times), so counts of such runs are within 1 token per 512 characters of tiktoken's own.
 */
export const longRunChars = 512;

// The character classes of the pieces o200k/cl100k pre-tokenization can make long: letters
// (with marks), symbols and punctuation (emoji included), whitespace, and `/`-newline tails.
const longRun = new RegExp(
  `[\\p{L}\\p{M}]{${longRunChars + 1},}|[^\\s\\p{L}\\p{N}]{${longRunChars + 1},}|\\s{${longRunChars + 1},}|[\\r\\n/]{${longRunChars + 1},}`,
  'gu',
);

/** Encodes a chunk, splitting only runs long enough to be quadratic; everything else is exact. */
export function encodeGuarded(chunk: string, encodePiece: EncodePiece): Uint32Array {
  const runs = findLongRuns(chunk);
  if (runs.length === 0) return encodePiece(chunk);
  const parts: Uint32Array[] = [];
  let position = 0;
  for (const [runStart, runEnd] of runs) {
    if (runStart > position) parts.push(encodePiece(chunk.slice(position, runStart)));
    for (let start = runStart; start < runEnd; ) {
      const sliceEnd = avoidSurrogateSplit(chunk, Math.min(runEnd, start + longRunChars));
      parts.push(encodePiece(chunk.slice(start, sliceEnd)));
      start = sliceEnd;
    }
    position = runEnd;
  }
  if (position < chunk.length) parts.push(encodePiece(chunk.slice(position)));
  return concatTokens(parts);
}

/** Moves a cut index forward by one when it would separate a surrogate pair. */
export function avoidSurrogateSplit(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return index;
  const before = text.charCodeAt(index - 1);
  return before >= 0xd800 && before <= 0xdbff ? index + 1 : index;
}

export function concatTokens(parts: readonly Uint32Array[]): Uint32Array {
  if (parts.length === 1) return parts[0] as Uint32Array;
  let length = 0;
  for (const part of parts) length += part.length;
  const joined = new Uint32Array(length);
  let offset = 0;
  for (const part of parts) {
    joined.set(part, offset);
    offset += part.length;
  }
  return joined;
}

// --- Internal helpers ---

/**
 * Long runs as [start, end) pairs. A Unicode-property regex over every chunk would cost more
 * than tokenizing it, so a char-code scan first finds stretches that could hold a long piece
 * (long stretches of whitespace-or-slash, or of anything else), and only those meet the regex.
 */
function findLongRuns(chunk: string): [number, number][] {
  const runs: [number, number][] = [];
  let stretchStart = 0;
  let stretchKind = chunk.length > 0 && isSpaceOrSlash(chunk.charCodeAt(0));
  for (let index = 1; index <= chunk.length; index++) {
    const kind = index < chunk.length && isSpaceOrSlash(chunk.charCodeAt(index));
    if (index < chunk.length && kind === stretchKind) continue;
    if (index - stretchStart > longRunChars) {
      longRun.lastIndex = 0;
      for (const match of chunk.slice(stretchStart, index).matchAll(longRun)) {
        runs.push([stretchStart + match.index, stretchStart + match.index + match[0].length]);
      }
    }
    stretchStart = index;
    stretchKind = kind;
  }
  return runs;
}

function isSpaceOrSlash(code: number): boolean {
  if (code <= 0x20 || code === 0x2f) return true;
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}
