import { concatTokens, encodeGuarded, type PieceEncoder } from './encode-guarded.js';
import { firstSafeBoundary, lastSafeBoundary } from './find-safe-boundary.js';

/**
 * Chunk size for counting. tiktoken runs at about 1 µs per token, so one call on a 1 MB text
 * blocks the event loop for ~300 ms; 16k characters (≤ 64 KB) keep each call under ~20 ms.
 */
export const chunkChars = 16_384;

// Bounded encodings read a window sized to the tokens still wanted: at first at o200k's average
// of ~4 characters a token, then at the ratio the text has shown so far, plus an eighth.
const firstCharsPerToken = 4;
const ratioSlack = 1.125;
const minimumWindow = 1024;
// Once a window has been read, a short one tops it up: the limit is usually close by then.
const minimumFollowingWindow = 256;

/** How long a counting loop may hold the event loop before it yields. */
const yieldAfterMs = 4;

export interface ChunkedEncoding {
  /** Tokens of `text.slice(start, end)`, in text order (empty unless `keepTokens`). */
  readonly tokens: Uint32Array;
  /** Tokens counted over `[start, end)`. */
  readonly count: number;
  readonly start: number;
  readonly end: number;
  /** True when `[start, end)` is the whole text, so `count` is its exact count. */
  readonly complete: boolean;
}

export interface ChunkedEncodeOptions {
  /** Stop once more than this many tokens are counted: the cost grows with the limit, not the text. */
  readonly limitTokens?: number;
  /** Count from the end backwards (for tail cuts). */
  readonly fromEnd?: boolean;
  readonly keepTokens?: boolean;
  /**
   * From the start only: the tokens of `text.slice(0, end)` from an earlier call that stopped at
   * `end`. Counting goes on from there: every place such a call stops is a chunk cut, where
   * encoding on its own gives the tokens one call on the whole text would.
   */
  readonly resume?: { readonly tokens: Uint32Array; readonly end: number };
  /**
   * From the end: piece boundaries of this text found by walking its pieces (ascending), added to
   * as walks find more. A caller that cuts the same text from its end again passes the same array:
   * text without safe boundaries (base64, minified JSON) is then walked from its start once.
   */
  readonly walked?: number[];
}

/**
 * Encodes text in chunks cut at piece boundaries (see find-safe-boundary.ts), so the tokens are
 * exactly those of one tiktoken call on the whole text, and yields to the event loop between
 * chunks. With `limitTokens` it stops early, from the start or from the end.
 */
export async function encodeChunked(
  text: string,
  encoder: PieceEncoder,
  options: ChunkedEncodeOptions = {},
): Promise<ChunkedEncoding> {
  const limit = options.limitTokens ?? Number.POSITIVE_INFINITY;
  const resume = options.fromEnd ? undefined : options.resume;
  const parts: Uint32Array[] = resume && options.keepTokens ? [resume.tokens] : [];
  let count = resume?.tokens.length ?? 0;
  let start = options.fromEnd ? text.length : 0;
  let end = resume?.end ?? start;
  let lastYield = performance.now();
  // From the end: piece boundaries earlier walks passed (see previousCut).
  const walked = options.walked ?? [];
  while ((options.fromEnd ? start > 0 : end < text.length) && count <= limit) {
    // With a limit, read about as many characters as the tokens still wanted need: a small limit
    // never pays for a whole chunk, and the last window reads little past the limit.
    const charsPerToken = count > 0 ? ((end - start) / count) * ratioSlack : firstCharsPerToken;
    const window = Math.min(
      chunkChars,
      Math.max(
        count > 0 ? minimumFollowingWindow : minimumWindow,
        Math.ceil((limit - count) * charsPerToken),
      ),
    );
    const [from, to] = options.fromEnd
      ? [previousCut(text, start, window, encoder.pieces, walked), start]
      : [end, nextCut(text, end, window, encoder.pieces)];
    const tokens = encodeGuarded(text.slice(from, to), encoder);
    count += tokens.length;
    if (options.keepTokens) {
      if (options.fromEnd) parts.unshift(tokens);
      else parts.push(tokens);
    }
    if (options.fromEnd) start = from;
    else end = to;
    if (performance.now() - lastYield > yieldAfterMs) {
      await new Promise((resolve) => setImmediate(resolve));
      lastYield = performance.now();
    }
  }
  return {
    tokens: parts.length === 0 ? new Uint32Array(0) : concatTokens(parts),
    count,
    start,
    end,
    complete: start === 0 && end === text.length,
  };
}

// --- Internal helpers ---

/** A piece boundary after `from` (itself one), near `from + size`. */
function nextCut(text: string, from: number, size: number, pieces: RegExp): number {
  const window = from + size;
  if (window >= text.length) return text.length;
  const safe = lastSafeBoundary(text, from, window);
  // No safe boundary in a whole chunk (minified JSON, base64, one unbroken run): walk the
  // pre-tokenizer's pieces from `from` instead; a piece longer than the window goes whole.
  return safe > from ? safe : lastPieceEnd(text, from, window, pieces);
}

/**
 * A piece boundary before `to` (itself one), near `to - size`. `walked` holds piece boundaries
 * earlier calls walked past (ascending), and gets this call's: text with no safe boundary (base64,
 * minified JSON) is walked from its start once, not once per chunk.
 */
function previousCut(text: string, to: number, size: number, pieces: RegExp, walked: number[]): number {
  const window = to - size;
  if (window <= 0) return 0;
  const safe = firstSafeBoundary(text, window, to);
  if (safe > 0 && safe < to) return safe;
  // Pieces can only be walked forwards: from the last boundary known before the window, a piece
  // end an earlier walk passed or a safe boundary after it.
  const known = lastAtOrBefore(walked, window);
  const before = Math.max(known, lastSafeBoundary(text, known, window));
  const passed: number[] = [];
  const cut = lastPieceEnd(text, before, window, pieces, passed);
  if (passed.length > 0) {
    walked.push(...passed);
    walked.sort((a, b) => a - b);
  }
  // One piece from there reaches `to`: the chunk starts where the piece does.
  return cut < to ? cut : before;
}

// A walk keeps a piece boundary about this often (a later walk starts at most this far back).
const walkMarkChars = 4096;

/** The largest of the ascending `values` at or before `limit`, or 0. */
function lastAtOrBefore(values: readonly number[], limit: number): number {
  let low = 0;
  let high = values.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((values[middle] ?? 0) <= limit) low = middle + 1;
    else high = middle;
  }
  return low === 0 ? 0 : (values[low - 1] ?? 0);
}

/**
 * The end of the last piece that ends at or before `limit`, walking the pieces from `from`
 * (a boundary), or the end of the first piece when that already reaches past `limit`. With
 * `passed`, piece ends about every `walkMarkChars` on the way are added to it.
 */
function lastPieceEnd(text: string, from: number, limit: number, pieces: RegExp, passed?: number[]): number {
  let cut = from;
  let marked = from;
  while (cut < limit) {
    pieces.lastIndex = cut;
    const piece = pieces.exec(text)?.[0];
    // The pattern matches every character; should it not, the rest goes as one chunk.
    if (piece === undefined) return text.length;
    if (cut + piece.length > limit && cut > from) break;
    cut += piece.length;
    if (passed && cut - marked >= walkMarkChars && cut <= limit) {
      passed.push(cut);
      marked = cut;
    }
  }
  return cut;
}
