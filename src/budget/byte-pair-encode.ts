import { concatTokens } from './concat-tokens.js';
import type { TokenizerEncoding } from './encoding-for-model.js';
import { type Vocabulary, vocabularyOf } from './vocabulary-of.js';

/**
 * Byte-pair encoding of one pre-tokenized piece, token for token what tiktoken returns, in
 * O(n log n) instead of tiktoken's O(n²): repeatedly merge the adjacent pair whose bytes have
 * the lowest rank, the leftmost on ties (tiktoken's `_byte_pair_merge`), with the candidate
 * pairs in a heap. tiktoken spends ~2.8 s on 64 KB of one letter; this takes milliseconds, so
 * long runs are counted exactly instead of in pieces. The rank table is the encoding's
 * vocabulary (vocabularyOf).
 */
export function bytePairEncode(encoding: TokenizerEncoding, piece: string): Uint32Array {
  const vocabulary = vocabularyOf(encoding);
  const bytes = isAscii(piece) ? piece : Buffer.from(piece, 'utf8').toString('latin1');
  // No token is longer than 128 bytes (o200k_base and cl100k_base alike).
  const whole = bytes.length <= maxTokenBytes ? vocabulary.rankOf(bytes) : undefined;
  if (whole !== undefined) return Uint32Array.of(whole);
  if (bytes.length <= shortPieceBytes) return mergeShort(vocabulary, bytes);
  if (bytes.length <= stitchedFromBytes) return mergeLong(vocabulary, bytes);
  return mergeStitched(encoding, vocabulary, bytes);
}

/** The most bytes one token of o200k_base or cl100k_base stands for. */
export const maxTokenBytes = 128;

// --- Internal helpers ---

// Pieces longer than this are merged window by window (mergeStitched).
const stitchedFromBytes = 8192;
const stitchWindowBytes = 4096;
// The window's token that the next window must start with lies about this far before its end:
// far enough that what follows the window has not changed it (merges reach a few tokens at most).
const stitchMarginBytes = 512;

/**
 * The merges of a long piece, exactly, one window of bytes at a time: the tokens of a window are
 * those of the whole piece up to a token `t` that the next window, started where `t` starts, also
 * starts with. That is the BPE property (github/rust-gems `bpe`, corollaries II and III): a
 * valid encoding cut at a token is valid on both sides (no merge crossed the cut), and two valid
 * encodings that overlap in one shared token join into the valid encoding of their union (a merge
 * across either end of `t` would have been made in one of the two). Windows the check refuses are
 * retried with another token, then with a window twice as long; the last resort is the whole rest
 * at once, so the result is always tiktoken's. Runs of one character repeat their windows, which
 * are merged once each (a 5 MB run of one letter costs milliseconds, not the seconds of one heap).
 */
function mergeStitched(encoding: TokenizerEncoding, vocabulary: Vocabulary, bytes: string): Uint32Array {
  const parts: Uint32Array[] = [];
  let start = 0;
  let size = stitchWindowBytes;
  let window = mergeWindow(encoding, vocabulary, bytes, start, size);
  while (start + size < bytes.length) {
    const next = nextWindow(encoding, vocabulary, bytes, start, size, window);
    if (next === undefined) {
      size *= 2;
      window = mergeWindow(encoding, vocabulary, bytes, start, size);
      continue;
    }
    parts.push(window.tokens.subarray(0, next.kept));
    start = next.start;
    window = next.window;
    size = stitchWindowBytes;
  }
  parts.push(window.tokens);
  // Windows are cached (windowCache): the answer is an array of its own, even from one window.
  return parts.length === 1 ? (parts[0] as Uint32Array).slice() : concatTokens(parts);
}

interface MergedWindow {
  readonly tokens: Uint32Array;
  /** Where each token starts, in bytes from the window's start. */
  readonly starts: Int32Array;
}

/**
 * The window after `window` (of `size` bytes at `start`): it starts at a token of `window` near
 * the window's end and begins with that very token. Undefined when no such token is found.
 */
function nextWindow(
  encoding: TokenizerEncoding,
  vocabulary: Vocabulary,
  bytes: string,
  start: number,
  size: number,
  window: MergedWindow,
): { kept: number; start: number; window: MergedWindow } | undefined {
  const { tokens, starts } = window;
  // The token at the margin, then the ones before it, as far back as the window's middle.
  let index = tokens.length - 1;
  while (index > 0 && (starts[index] as number) > size - stitchMarginBytes) index--;
  for (let tries = 0; tries < 4 && index > 0 && (starts[index] as number) >= size / 2; tries++, index--) {
    const nextStart = start + (starts[index] as number);
    const next = mergeWindow(encoding, vocabulary, bytes, nextStart, size);
    if (next.tokens[0] === tokens[index]) return { kept: index, start: nextStart, window: next };
  }
  return undefined;
}

// Windows merged lately, by their bytes: a run of one character repeats them.
const windowCache = new Map<string, MergedWindow>();
const windowCacheEntries = 32;

function mergeWindow(
  encoding: TokenizerEncoding,
  vocabulary: Vocabulary,
  bytes: string,
  start: number,
  size: number,
): MergedWindow {
  const text = bytes.slice(start, start + size);
  const key = `${encoding}:${text}`;
  const known = windowCache.get(key);
  if (known) return known;
  const tokens = mergeLong(vocabulary, text);
  const starts = new Int32Array(tokens.length);
  let offset = 0;
  for (let index = 0; index < tokens.length; index++) {
    starts[index] = offset;
    offset += vocabulary.byteLength(tokens[index] as number) ?? 0;
  }
  const merged = { tokens, starts };
  if (windowCache.size >= windowCacheEntries) windowCache.delete(windowCache.keys().next().value as string);
  windowCache.set(key, merged);
  return merged;
}

/** ASCII text is its own byte string (one latin1 character per byte). */
function isAscii(text: string): boolean {
  for (let index = 0; index < text.length; index++) if (text.charCodeAt(index) > 0x7f) return false;
  return true;
}

// Up to this many bytes a piece is merged as tiktoken does, scanning all pairs for the lowest
// rank after each merge: quadratic, but with no heap and no per-piece arrays it is the faster
// way for the short pieces of ordinary text.
const shortPieceBytes = 64;
const shortStarts = new Int32Array(shortPieceBytes + 1);
const shortRanks = new Float64Array(shortPieceBytes);

/** tiktoken's `_byte_pair_merge` on a short piece (parts listed by their starts). */
function mergeShort(vocabulary: Vocabulary, bytes: string): Uint32Array {
  const starts = shortStarts;
  const pairRanks = shortRanks;
  let parts = bytes.length;
  for (let index = 0; index <= parts; index++) starts[index] = index;
  const rankOf = (first: number) =>
    first + 1 < parts
      ? (vocabulary.rankOf(bytes.slice(starts[first], starts[first + 2])) ?? Infinity)
      : Infinity;
  for (let index = 0; index < parts; index++) pairRanks[index] = rankOf(index);
  for (;;) {
    let lowest = Infinity;
    let at = -1;
    // The leftmost of the lowest, as tiktoken takes it.
    for (let index = 0; index + 1 < parts; index++) {
      const rank = pairRanks[index] as number;
      if (rank < lowest) {
        lowest = rank;
        at = index;
      }
    }
    if (at < 0) break;
    starts.copyWithin(at + 1, at + 2, parts + 1);
    pairRanks.copyWithin(at + 1, at + 2, parts);
    parts--;
    pairRanks[at] = rankOf(at);
    if (at > 0) pairRanks[at - 1] = rankOf(at - 1);
  }
  const tokens = new Uint32Array(parts);
  for (let index = 0; index < parts; index++)
    tokens[index] = rankOfPart(vocabulary, bytes, starts[index] as number, starts[index + 1] as number);
  return tokens;
}

/** The token a merged part is; every single byte is one, and merges only make tokens. */
function rankOfPart(vocabulary: Vocabulary, bytes: string, start: number, end: number): number {
  const rank = vocabulary.rankOf(bytes.slice(start, end));
  if (rank === undefined) throw new Error('no rank for a byte-pair part');
  return rank;
}

/** The same merges with the candidate pairs in a heap: O(n log n) for long pieces. */
function mergeLong(vocabulary: Vocabulary, bytes: string): Uint32Array {
  const length = bytes.length;
  // Parts are identified by their first byte; `next` links them (length = end of text).
  const next = new Int32Array(length);
  const previous = new Int32Array(length);
  const alive = new Uint8Array(length).fill(1);
  // The rank of the pair starting at each part (-1: not in the vocabulary, never merges).
  const pairRank = new Int32Array(length).fill(-1);
  const heap = new PairHeap(length);
  for (let index = 0; index < length; index++) {
    next[index] = index + 1;
    previous[index] = index - 1;
  }
  const rankPair = (start: number) => {
    const middle = next[start] as number;
    if (middle >= length) return -1;
    return vocabulary.rankOf(bytes.slice(start, next[middle] as number)) ?? -1;
  };
  for (let index = 0; index + 1 < length; index++) {
    const rank = rankPair(index);
    pairRank[index] = rank;
    if (rank >= 0) heap.push(rank, index);
  }
  while (heap.size > 0) {
    const [rank, start] = heap.pop();
    // A pair's rank changes whenever either of its parts does (its bytes grow, and distinct
    // byte strings have distinct ranks), so an entry is current iff its rank still matches.
    if (alive[start] === 0 || pairRank[start] !== rank) continue;
    const absorbed = next[start] as number;
    alive[absorbed] = 0;
    pairRank[absorbed] = -1;
    const after = next[absorbed] as number;
    next[start] = after;
    if (after < length) previous[after] = start;
    pairRank[start] = rankPair(start);
    if ((pairRank[start] as number) >= 0) heap.push(pairRank[start] as number, start);
    const before = previous[start] as number;
    if (before >= 0) {
      pairRank[before] = rankPair(before);
      if ((pairRank[before] as number) >= 0) heap.push(pairRank[before] as number, before);
    }
  }
  const tokens: number[] = [];
  for (let start = 0; start < length; start = next[start] as number)
    tokens.push(rankOfPart(vocabulary, bytes, start, next[start] as number));
  return Uint32Array.from(tokens);
}

/** A binary min-heap of (rank, start) pairs, ordered by rank then start (leftmost first). */
class PairHeap {
  private readonly keys: Float64Array;
  size = 0;

  constructor(pairs: number) {
    // Each merge pushes at most two pairs.
    this.keys = new Float64Array(Math.max(1, 3 * pairs));
  }

  push(rank: number, start: number): void {
    const key = rank * 2 ** 32 + start;
    let index = this.size++;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const above = this.keys[parent] as number;
      if (above <= key) break;
      this.keys[index] = above;
      index = parent;
    }
    this.keys[index] = key;
  }

  pop(): [rank: number, start: number] {
    const top = this.keys[0] as number;
    const last = this.keys[--this.size] as number;
    let index = 0;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= this.size) break;
      const right = left + 1;
      const child =
        right < this.size && (this.keys[right] as number) < (this.keys[left] as number) ? right : left;
      if ((this.keys[child] as number) >= last) break;
      this.keys[index] = this.keys[child] as number;
      index = child;
    }
    this.keys[index] = last;
    const rank = Math.floor(top / 2 ** 32);
    return [rank, top - rank * 2 ** 32];
  }
}
