import type { TokenizerEncoding } from './encoding-for-model.js';
import {
  bitsOf,
  letterBit,
  letterish,
  lowerBit,
  newlineBit,
  numberBit,
  punctBit,
  spaceBit,
  tailBits,
  upperBit,
} from './piece-classes.js';

/**
 * A run of one kind of character (letters and marks, punctuation, `\r\n/` tails, whitespace)
 * longer than this may hold a piece too long for tiktoken's quadratic BPE: encode-guarded.ts
 * splits text with such a run into its pieces (see PieceScanner.hasLongRun).
 */
export const longRunChars = 512;

/**
 * tiktoken's pre-tokenizer (o200k_base, cl100k_base) as a scanner over code point classes, piece
 * for piece what preTokenizePattern's regex matches, but linear and with no backtracking stack:
 * each alternative of the pattern is one or two runs of a class, and where the regex backtracks
 * (`A*B+` takes back letters until a lower-case one; `\s*[\r\n]+` takes back whitespace until a
 * newline) the scanner looks back once from the run's end. Runs already scanned are remembered,
 * so the many short pieces of one long run (`A世A世…`) cost one scan of it, not one each.
 *
 * `limit` makes the scanner see `text.slice(0, limit)`: `certain` then says whether the piece just
 * found depended on nothing at or past `limit`, so that it is also the piece of the whole text.
 */
export class PieceScanner {
  private text = '';
  private limit = 0;
  private touched = false;
  // Per run kind: the run last scanned, [start, end) (end -1: none).
  private readonly runStarts = new Int32Array(runKinds);
  private readonly runEnds = new Int32Array(runKinds).fill(-1);
  // Per look-back kind: the run it looked back over, [start, end), and what it found (-1: none).
  private readonly backStarts = new Int32Array(backKinds);
  private readonly backEnds = new Int32Array(backKinds).fill(-1);
  private readonly backFound = new Int32Array(backKinds);
  // The code point `read` read last, and its width in UTF-16 units.
  private width = 1;

  constructor(readonly encoding: TokenizerEncoding) {}

  /** The end of the piece that starts at `at` (a piece boundary) in `text.slice(0, limit)`. */
  pieceEnd(text: string, at: number, limit = text.length): number {
    if (text !== this.text || limit !== this.limit) {
      this.text = text;
      this.limit = limit;
      this.runEnds.fill(-1);
      this.backEnds.fill(-1);
    }
    this.touched = false;
    return this.encoding === 'cl100k_base' ? this.cl100k(at) : this.o200k(at);
  }

  /** Whether the last piece found is also the whole text's: nothing at or past `limit` decided it. */
  get certain(): boolean {
    return !this.touched || this.limit >= this.text.length;
  }

  /** Whether `text.slice(from, to)` has a run longer than longRunChars (see longRunChars). */
  static hasLongRun(text: string, from = 0, to = text.length): boolean {
    let letters = from;
    let punctuation = from;
    let tails = from;
    let spaces = from;
    for (let index = from; index < to; ) {
      const unit = text.charCodeAt(index);
      let code = unit;
      let width = 1;
      if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < to) {
        const low = text.charCodeAt(index + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          code = ((unit - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
          width = 2;
        }
      }
      const bits = bitsOf(code);
      if ((bits & letterish) === 0) letters = index + width;
      if ((bits & punctBit) === 0) punctuation = index + width;
      if ((bits & tailBits) === 0) tails = index + width;
      if ((bits & spaceBit) === 0) spaces = index + width;
      index += width;
      if (index - Math.min(letters, punctuation, tails, spaces) > longRunChars) return true;
    }
    return false;
  }

  // --- The pattern's alternatives, in its order ---

  private o200k(at: number): number {
    const bits = this.read(at);
    const width = this.width;
    const prefixed = isPrefix(bits);
    // `[^\r\n\p{L}\p{N}]?` tries with its character first, then without.
    let end = prefixed ? this.lettersEndingLower(at + width) : -1;
    if (end < 0) end = this.lettersEndingLower(at);
    if (end < 0 && prefixed) end = this.lettersFromUpper(at + width);
    if (end < 0) end = this.lettersFromUpper(at);
    if (end >= 0) return end;
    if ((bits & numberBit) !== 0) return this.numbers(at);
    end = this.punctuation(at, bits, tailBits);
    return end >= 0 ? end : this.whitespace(at, bits, width);
  }

  private cl100k(at: number): number {
    const bits = this.read(at);
    const width = this.width;
    if (this.text.charCodeAt(at) === apostrophe) {
      const end = this.contraction(at);
      if (end > at) return end;
    }
    // `[^\r\n\p{L}\p{N}]?\p{L}+`: a prefix character that no letter follows fails both ways.
    if (isPrefix(bits)) {
      const start = at + width;
      if (start >= this.limit) this.touched = true;
      else if ((this.read(start) & letterBit) !== 0) return this.runEnd(start, letterBit, letterRun);
    } else if ((bits & letterBit) !== 0) return this.runEnd(at, letterBit, letterRun);
    if ((bits & numberBit) !== 0) return this.numbers(at);
    const end = this.punctuation(at, bits, newlineBit);
    return end >= 0 ? end : this.whitespace(at, bits, width);
  }

  /** `A*B+` and a contraction (A: upper, title, modifier, other letters and marks; B: lower, modifier, other and marks). */
  private lettersEndingLower(start: number): number {
    if (start >= this.limit) {
      this.touched = true;
      return -1;
    }
    const upperEnd = this.runEnd(start, upperBit, upperRun);
    // A* gives back one code point at a time until B+ can start: the last B in reach.
    let lowerStart = -1;
    if (upperEnd < this.limit && (this.read(upperEnd) & lowerBit) !== 0) lowerStart = upperEnd;
    else lowerStart = this.lastWithin(start, upperEnd, lowerBit, lowerBack);
    if (lowerStart < 0) return -1;
    return this.contraction(this.runEnd(lowerStart, lowerBit, lowerRun));
  }

  /** `A+B*` and a contraction. */
  private lettersFromUpper(start: number): number {
    if (start >= this.limit) {
      this.touched = true;
      return -1;
    }
    if ((this.read(start) & upperBit) === 0) return -1;
    const upperEnd = this.runEnd(start, upperBit, upperRun);
    return this.contraction(this.runEnd(upperEnd, lowerBit, lowerRun));
  }

  /** `'s|'t|'re|'ve|'m|'ll|'d`, any case (`'ſ` too), at `at`: its end, or `at` when none is there. */
  private contraction(at: number): number {
    const { text, limit } = this;
    if (at >= limit) {
      this.touched = true;
      return at;
    }
    if (text.charCodeAt(at) !== apostrophe) return at;
    if (at + 1 >= limit) {
      this.touched = true;
      return at;
    }
    const first = text.charCodeAt(at + 1) | 0;
    if (oneLetter.has(first)) return at + 2;
    const second = twoLetters.get(first);
    if (second === undefined) return at;
    if (at + 2 >= limit) {
      this.touched = true;
      return at;
    }
    return second.has(text.charCodeAt(at + 2)) ? at + 3 : at;
  }

  /** `\p{N}{1,3}`. */
  private numbers(at: number): number {
    let end = at;
    for (let count = 0; count < 3; count++) {
      if (end >= this.limit) {
        this.touched = true;
        break;
      }
      if ((this.read(end) & numberBit) === 0) break;
      end += this.width;
    }
    return end;
  }

  /** ` ?[^\s\p{L}\p{N}]+` and its tail (`[\r\n/]*` in o200k, `[\r\n]*` in cl100k); -1 when none starts here. */
  private punctuation(at: number, bits: number, tail: number): number {
    let start = at;
    if (this.text.charCodeAt(at) === space) {
      if (at + 1 >= this.limit) {
        this.touched = true;
        return -1;
      }
      if ((this.read(at + 1) & punctBit) === 0) return -1;
      start = at + 1;
    } else if ((bits & punctBit) === 0) return -1;
    const end = this.runEnd(start, punctBit, punctRun);
    return this.runEnd(end, tail, tail === tailBits ? tailRun : newlineRun);
  }

  /** `\s*[\r\n]+`, then `\s+(?!\S)`, then `\s+`. Every White_Space character is one UTF-16 unit. */
  private whitespace(at: number, bits: number, width: number): number {
    if ((bits & spaceBit) === 0) return at + width;
    const end = this.runEnd(at, spaceBit, spaceRun);
    // `\s*` gives back until a newline can follow: the last newline of the run, alone.
    const newline = this.lastWithin(at, end, newlineBit, newlineBack);
    if (newline >= 0) return newline + 1;
    if (end >= this.limit) return end;
    // Followed by a non-space: all but the last, which goes with what follows; a single one stays.
    return end - 1 > at ? end - 1 : end;
  }

  // --- Runs and code points ---

  /** The end of the run of code points with any of `mask`'s bits from `start`. */
  private runEnd(start: number, mask: number, kind: number): number {
    const known = this.runEnds[kind] as number;
    let end: number;
    if (known >= 0 && start >= (this.runStarts[kind] as number) && start <= known) end = known;
    else {
      end = start;
      while (end < this.limit && (this.read(end) & mask) !== 0) end += this.width;
      this.runStarts[kind] = start;
      this.runEnds[kind] = end;
    }
    if (end >= this.limit) this.touched = true;
    return end;
  }

  /** The start of the last code point in `[start, end)` with any of `mask`'s bits, or -1. */
  private lastWithin(start: number, end: number, mask: number, kind: number): number {
    if (this.backEnds[kind] === end && start >= (this.backStarts[kind] as number)) {
      const found = this.backFound[kind] as number;
      return found >= start ? found : -1;
    }
    let found = -1;
    for (let index = end - 1; index >= start; index--) {
      const unit = this.text.charCodeAt(index);
      // The low half of a pair is read with its high half.
      if (unit >= 0xdc00 && unit <= 0xdfff && index > start) {
        const high = this.text.charCodeAt(index - 1);
        if (high >= 0xd800 && high <= 0xdbff) index--;
      }
      if ((this.read(index) & mask) !== 0) {
        found = index;
        break;
      }
    }
    this.backStarts[kind] = start;
    this.backEnds[kind] = end;
    this.backFound[kind] = found;
    return found;
  }

  /** The class bits of the code point at `at` (< limit); sets `width`. A pair cut by `limit` is a lone surrogate. */
  private read(at: number): number {
    const { text } = this;
    const unit = text.charCodeAt(at);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      if (at + 1 >= this.limit) {
        if (at + 1 < text.length) this.touched = true;
      } else {
        const low = text.charCodeAt(at + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          this.width = 2;
          return bitsOf(((unit - 0xd800) << 10) + (low - 0xdc00) + 0x10000);
        }
      }
    }
    this.width = 1;
    return bitsOf(unit);
  }
}

// --- Internal helpers ---

const upperRun = 0;
const lowerRun = 1;
const letterRun = 2;
const punctRun = 3;
const tailRun = 4;
const newlineRun = 5;
const spaceRun = 6;
const runKinds = 7;
const lowerBack = 0;
const newlineBack = 1;
const backKinds = 2;

const apostrophe = 0x27;
const space = 0x20;
const oneLetter = new Set([...'sStTmMdDſ'].map((letter) => letter.charCodeAt(0)));
const twoLetters = new Map([
  [0x72, new Set([0x65, 0x45])],
  [0x52, new Set([0x65, 0x45])],
  [0x76, new Set([0x65, 0x45])],
  [0x56, new Set([0x65, 0x45])],
  [0x6c, new Set([0x6c, 0x4c])],
  [0x4c, new Set([0x6c, 0x4c])],
]);

/** `[^\r\n\p{L}\p{N}]`: the one character a letter piece may start with. */
function isPrefix(bits: number): boolean {
  return (bits & (newlineBit | letterBit | numberBit)) === 0;
}
