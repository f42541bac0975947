import { isSafeBoundary } from './find-safe-boundary.js';
import { bitsOf, codePointAt, codePointBefore, numberBit, spaceBit } from './piece-classes.js';
import type { Tokenizer } from './tokenizer.js';

// Shapes kept per tokenizer, the map emptied when it reaches this many entries or
// its keys this many characters (about 2 MB at most together).
const maxEntries = 4096;
const maxKeyChars = 512 * 1024;

/**
 * The exact count of a short text that starts and ends on piece boundaries (what countJoined
 * counts between known parts: a marker and the joins around it), without encoding it when text of
 * its shape was counted before. A `relevant` cut has a marker at every gap, hundreds a turn, each
 * with offsets of its own: encoding each costs about 8 µs, more than the rest of the cut.
 *
 * The text is cut at safe newline boundaries (find-safe-boundary.ts), and each segment around its
 * runs of ASCII digits (a run on its own, no other number beside it): numbers make pieces of their own (`\p{N}{1,3}` from the run's start) and
 * no other piece takes a digit, so a run starts a piece and so does what follows it, and the
 * pieces either side are those the segment has (not before a run after two or more whitespace
 * characters: there the whole's last space is a piece of its own, as `\s+(?!\S)` backs off a
 * space before a non-space, while cut there the spaces would make one piece). A segment's count
 * is then its words' count, kept by their shape (the segment without its numbers), plus each
 * number's. Undefined when the tokenizer has no `countShort` or a segment is too long for it.
 */
export function countByShape(text: string, tokenizer: Tokenizer): number | undefined {
  if (!tokenizer.countShort) return undefined;
  const memo = memoOf(tokenizer);
  let total = 0;
  let from = 0;
  for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', newline + 1)) {
    const cut = newline + 1;
    if (cut >= text.length) break;
    if (!isSafeBoundary(text, cut)) continue;
    const count = countSegment(text.slice(from, cut), tokenizer, memo);
    if (count === undefined) return undefined;
    total += count;
    from = cut;
  }
  if (from === text.length) return total;
  const count = countSegment(from === 0 ? text : text.slice(from), tokenizer, memo);
  return count === undefined ? undefined : total + count;
}

// --- Internal helpers ---

interface ShapeMemo {
  readonly shapes: BoundedMap;
  /** Tokens of each run of one to three ASCII digits, by its digits; -1 until counted. */
  readonly digitGroups: Int8Array;
}

const memos = new WeakMap<Tokenizer, ShapeMemo>();

function memoOf(tokenizer: Tokenizer): ShapeMemo {
  let memo = memos.get(tokenizer);
  if (!memo) {
    memo = { shapes: new BoundedMap(), digitGroups: new Int8Array(digitGroupSlots).fill(-1) };
    memos.set(tokenizer, memo);
  }
  return memo;
}

function countSegment(segment: string, tokenizer: Tokenizer, memo: ShapeMemo): number | undefined {
  const short = tokenizer.countShort as (text: string) => number | undefined;
  // The shape joins the words with U+0000: a segment that has one is counted as it stands.
  if (segment.includes('\u0000')) return short.call(tokenizer, segment);
  // The words between the runs that are pieces of their own, joined into the shape once (one
  // flat string: built by `+=` it was a rope, flattened again by every lookup).
  const words: string[] = [];
  let numbers = 0;
  let from = 0;
  for (let start = 0; start < segment.length; start++) {
    if (!isAsciiDigit(segment.charCodeAt(start))) continue;
    let end = start + 1;
    while (end < segment.length && isAsciiDigit(segment.charCodeAt(end))) end++;
    // A run of ASCII digits within a longer run of numbers (`٣12`) is no piece boundary.
    if (!isNumberAround(segment, start, end) && (start === 0 || cutsBeforeNumber(segment, start))) {
      const count = countDigits(segment, start, end, tokenizer, memo);
      if (count === undefined) return undefined;
      numbers += count;
      words.push(segment.slice(from, start));
      from = end;
    }
    start = end;
  }
  if (words.length === 0) return short.call(tokenizer, segment);
  words.push(segment.slice(from));
  const shape = words.join('\u0000');
  let wordTokens = memo.shapes.get(shape);
  if (wordTokens === undefined) {
    wordTokens = 0;
    for (const piece of words) {
      if (piece.length === 0) continue;
      const count = short.call(tokenizer, piece);
      if (count === undefined) return undefined;
      wordTokens += count;
    }
    memo.shapes.set(shape, wordTokens);
  }
  return wordTokens + numbers;
}

function isAsciiDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

// Slots for every run of one to three digits: 10 + 100 + 1000 ("7", "07" and "007" apart).
const digitGroupSlots = 1110;

/**
 * Tokens of a run of ASCII digits standing alone: the pre-tokenizer cuts it into pieces of three
 * digits from its start (`\p{N}{1,3}`), so it counts as those pieces do, each counted once per
 * tokenizer and kept in a table of 1,110 slots. Markers' offsets are new numbers every turn: kept
 * whole, they were counted afresh each time.
 */
function countDigits(
  text: string,
  start: number,
  end: number,
  tokenizer: Tokenizer,
  memo: ShapeMemo,
): number | undefined {
  let total = 0;
  for (let from = start; from < end; from += 3) {
    const length = Math.min(3, end - from);
    let value = 0;
    for (let at = from; at < from + length; at++) value = value * 10 + text.charCodeAt(at) - 0x30;
    // "7" → 0, "07" → 10 + 7, "007" → 110 + 7.
    const slot = (length === 1 ? 0 : length === 2 ? 10 : 110) + value;
    let count = memo.digitGroups[slot] as number;
    if (count < 0) {
      const counted = tokenizer.countShort?.(text.slice(from, from + length));
      if (counted === undefined) return undefined;
      count = counted;
      memo.digitGroups[slot] = count;
    }
    total += count;
  }
  return total;
}

/** Whether a number other than an ASCII digit stands just before `start` or at `end`. */
function isNumberAround(text: string, start: number, end: number): boolean {
  return (
    (start > 0 && (bitsOf(codePointBefore(text, start)) & numberBit) !== 0) ||
    (end < text.length && (bitsOf(codePointAt(text, end)) & numberBit) !== 0)
  );
}

/** Whether a number at `index` is preceded by anything but two or more whitespace characters. */
function cutsBeforeNumber(text: string, index: number): boolean {
  const before = codePointBefore(text, index);
  if ((bitsOf(before) & spaceBit) === 0) return true;
  const first = index - (before > 0xffff ? 2 : 1);
  return first <= 0 || (bitsOf(codePointBefore(text, first)) & spaceBit) === 0;
}

/** A Map emptied when it reaches maxEntries entries or maxKeyChars characters of keys. */
class BoundedMap {
  #map = new Map<string, number>();
  #keyChars = 0;

  get(key: string): number | undefined {
    return this.#map.get(key);
  }

  set(key: string, value: number): void {
    if (this.#map.size >= maxEntries || this.#keyChars + key.length > maxKeyChars) {
      this.#map = new Map();
      this.#keyChars = 0;
    }
    this.#map.set(key, value);
    this.#keyChars += key.length;
  }
}
