import { maxTokenBytes } from './byte-pair-encode.js';
import { concatTokens } from './concat-tokens.js';
import { encodeGuarded, type PieceEncoder } from './encode-guarded.js';
import {
  firstHardBoundary,
  firstSafeBoundary,
  lastHardBoundary,
  lastSafeBoundary,
} from './find-safe-boundary.js';
import type { PieceScanner } from './scan-pieces.js';

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
  /**
   * Set when a limited encoding met a piece longer than a chunk (one letter repeated, CJK or emoji
   * without a break): it was cut where the limit needs, not where the piece ends, so `tokens` are
   * those of `text.slice(start, end)` on its own (what a cut there shows), not the first ones of the
   * whole text. The encoding cannot be gone on from, and `complete` is false.
   */
  readonly standalone?: true;
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
   * encoding on its own gives the tokens one call on the whole text would (a `standalone` one is
   * ignored: it stopped inside a piece).
   */
  readonly resume?: { readonly tokens: Uint32Array; readonly end: number; readonly standalone?: true };
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
  const bounded = options.limitTokens !== undefined;
  const resume = options.fromEnd || options.resume?.standalone ? undefined : options.resume;
  const parts: Uint32Array[] = resume && options.keepTokens ? [resume.tokens] : [];
  let count = resume?.tokens.length ?? 0;
  let start = options.fromEnd ? text.length : 0;
  let end = resume?.end ?? start;
  let standalone = false;
  let lastYield = performance.now();
  // From the end: piece boundaries earlier walks passed (see previousCut).
  const walked = options.walked ?? [];
  while ((options.fromEnd ? start > 0 : end < text.length) && count <= limit && !standalone) {
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
    let [from, to] = options.fromEnd
      ? [previousCut(text, start, window, encoder.scanner, walked, bounded), start]
      : [end, nextCut(text, end, window, encoder.scanner, bounded)];
    let tokens: Uint32Array;
    if (from >= 0 && to >= 0) tokens = encodeGuarded(text.slice(from, to), encoder);
    else {
      // A piece longer than a chunk crosses the window: no cut within reach tokenizes as the whole
      // text does. Encode the text to where the limit needs on its own, and stop there.
      const taken = encodeStandalone(text, encoder, options.fromEnd ? start : end, window, limit - count, {
        fromEnd: options.fromEnd === true,
      });
      [from, to, tokens] = [taken.from, taken.to, taken.tokens];
      standalone = options.fromEnd ? from > 0 : to < text.length;
    }
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
    ...(standalone && { standalone: true }),
  };
}

// --- Internal helpers ---

/** A piece longer than this stops a limited encoding (see ChunkedEncoding.standalone). */
const wholePieceChars = chunkChars;

/**
 * A piece boundary after `from` (itself one), near `from + size`; -1 when, with a limit, the piece
 * at `from` is longer than `wholePieceChars` or its end is not found within that reach.
 */
function nextCut(text: string, from: number, size: number, scanner: PieceScanner, bounded: boolean): number {
  const window = from + size;
  if (window >= text.length) return text.length;
  // Safe boundaries first (line starts, words); where there are none, the digits and letters of
  // base64 or minified JSON give hard ones.
  const safe = lastSafeBoundary(text, from, window);
  if (safe > from) return safe;
  const hard = lastHardBoundary(text, from, window);
  if (hard > from) return hard;
  // No safe boundary in a whole chunk (one unbroken run, of letters, CJK, emoji, punctuation):
  // walk the pre-tokenizer's pieces from `from` instead; a piece longer than the window goes whole,
  // up to wholePieceChars with a limit (reading no further than that), however long without one.
  return lastPieceEnd(text, from, window, bounded ? from + wholePieceChars : text.length, scanner);
}

/**
 * A piece boundary before `to` (itself one), near `to - size`; -1 when, with a limit, none is found
 * within wholePieceChars before the window. `walked` holds piece boundaries earlier calls walked
 * past (ascending), and gets this call's: text with no safe boundary (base64, minified JSON) is
 * walked from its start once, not once per chunk.
 */
function previousCut(
  text: string,
  to: number,
  size: number,
  scanner: PieceScanner,
  walked: number[],
  bounded: boolean,
): number {
  const window = to - size;
  if (window <= 0) return 0;
  for (const safe of [firstSafeBoundary(text, window, to), firstHardBoundary(text, window, to)])
    if (safe > 0 && safe < to) return safe;
  // Pieces can only be walked forwards: from the last boundary known before the window, a piece
  // end an earlier walk passed or a safe boundary after it. With a limit, from no further back
  // than wholePieceChars: past that the piece across the window is too long to take whole.
  const known = lastAtOrBefore(walked, window);
  const floor = bounded ? Math.max(known, window - wholePieceChars) : known;
  let before = Math.max(lastSafeBoundary(text, floor, window), lastHardBoundary(text, floor, window));
  if (before < 0) {
    if (floor > known) return -1;
    before = known;
  }
  const passed: number[] = [];
  // The piece across the window ends at `to` at the latest (`to` is a piece boundary).
  const cut = lastPieceEnd(text, before, window, to, scanner, passed);
  if (passed.length > 0) {
    walked.push(...passed);
    walked.sort((a, b) => a - b);
  }
  // One piece from there reaches `to` (or its end was not made certain): the chunk starts where
  // the piece does.
  return cut >= 0 && cut < to ? cut : before;
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
 * (a boundary), or the end of the first piece when that already reaches past `limit` and ends by
 * `reach`; -1 when it does not. Every piece is found reading no further than the next one's first
 * character past `limit` (or `reach`), and only pieces that did not depend on what lies beyond are
 * taken (PieceScanner.certain): they are the whole text's. With `passed`, piece ends about every
 * `walkMarkChars` on the way are added to it.
 */
function lastPieceEnd(
  text: string,
  from: number,
  limit: number,
  reach: number,
  scanner: PieceScanner,
  passed?: number[],
): number {
  let cut = from;
  let marked = from;
  const seen = Math.min(text.length, limit + 1);
  while (cut < limit) {
    let end = scanner.pieceEnd(text, cut, seen);
    if (!scanner.certain || end > limit) {
      if (cut > from) break;
      end = scanner.pieceEnd(text, cut, Math.min(text.length, reach + 1));
      return scanner.certain && end <= reach ? end : -1;
    }
    cut = end;
    if (passed && cut - marked >= walkMarkChars) {
      passed.push(cut);
      marked = cut;
    }
  }
  return cut;
}

/**
 * Tokens of the text from `at` (from the end: up to `at`) on its own, as far as `wanted` tokens
 * need: first `size` characters (at most minimumWindow), then as many more as the ratio seen
 * says, each time encoded anew (so at most about twice the characters the limit needs). Never
 * more than the characters `wanted + 1` tokens can hold: each token is at most maxTokenBytes
 * bytes, so that much text has more than `wanted` tokens whatever its tokens are.
 */
function encodeStandalone(
  text: string,
  encoder: PieceEncoder,
  at: number,
  size: number,
  wanted: number,
  { fromEnd }: { fromEnd: boolean },
): { from: number; to: number; tokens: Uint32Array } {
  const available = fromEnd ? at : text.length - at;
  const most = Math.min(available, (Math.max(0, wanted) + 1) * maxTokenBytes);
  // A first look of at most minimumWindow characters learns the ratio: a window sized at ~4
  // characters a token reads four times what CJK needs (about 2 tokens a character).
  let length = Math.min(most, Math.max(1, Math.min(size, minimumWindow)));
  for (;;) {
    const [from, to] = fromEnd ? [at - length, at] : [at, at + length];
    const tokens = encodeGuarded(text.slice(from, to), encoder);
    if (tokens.length > wanted || length >= most) return { from, to, tokens };
    const charsPerToken = (length / Math.max(1, tokens.length)) * ratioSlack;
    length = Math.min(most, Math.max(2 * length, Math.ceil((wanted + 1) * charsPerToken)));
  }
}
