import {
  bitsOf,
  codePointAt,
  codePointBefore,
  letterBit,
  letterish,
  newlineBit,
  numberBit,
  punctBit,
  spaceBit,
} from './piece-classes.js';

/**
 * Where text can be cut into pieces that tokenize exactly like the whole.
 *
 * tiktoken's pre-tokenizer (o200k_base and cl100k_base) splits text into pieces by a regex and
 * BPE-merges only inside a piece, so counting piece by piece is exact when every cut falls on a
 * piece boundary. Three kinds of position are boundaries whatever surrounds them:
 * - after a newline followed by a character that is neither whitespace nor `/` (a newline run
 *   `\s*[\r\n]+` ends there, and punctuation pieces absorb trailing `[\r\n/]*`, so `"\n/"` can
 *   merge and is not safe);
 * - after a newline that follows punctuation (not a mark) and precedes whitespace other than a
 *   newline: the punctuation's piece took the newline (`[^\s\p{L}\p{N}]+[\r\n/]*`, no letter
 *   piece ends in a newline) and can take nothing more, so what follows starts afresh (`"{\n  x"`,
 *   `"]\n  x"`: a line of code after a brace, a truncation marker before indented text);
 * - before a space that follows a letter or digit and precedes a letter (`" word"` is one piece
 *   that starts at the space).
 */
export function isSafeBoundary(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return true;
  return isSafeBetween(text, index, text, index);
}

/**
 * isSafeBoundary(left + right, left.length), without joining them: for a join between two parts
 * of a text, `left` of three UTF-16 units or more and `right` of two or more (what it reads).
 */
export function isSafeJoin(left: string, right: string): boolean {
  return isSafeBetween(left, left.length, right, 0);
}

/**
 * The last safe boundary in `(from, to]`, preferring newlines; -1 when there is none. Scans
 * backwards from `to` and never before `from`, so the work is at most the window's length
 * (`lastIndexOf` has no lower bound: on a text without newlines, base64 say, it searched back to
 * the text's start for every chunk, and counting 4 MB of it took 2.5× as long as 2 MB).
 */
export function lastSafeBoundary(text: string, from: number, to: number): number {
  if (to >= text.length) return text.length;
  for (let index = to - 1; index >= Math.max(0, from); index--) {
    if (text.charCodeAt(index) === newline && isSafeBoundary(text, index + 1)) return index + 1;
  }
  for (let index = to; index > Math.max(-1, from); index--) {
    if (text.charCodeAt(index) === space && isSafeBoundary(text, index)) return index;
  }
  return -1;
}

/**
 * The first safe boundary in `[from, to)`, preferring newlines; -1 when there is none. Scans
 * forwards from `from` and never past `to` (see lastSafeBoundary).
 */
export function firstSafeBoundary(text: string, from: number, to: number): number {
  if (from <= 0) return 0;
  for (let index = from - 1; index + 1 < Math.min(to, text.length + 1); index++) {
    if (text.charCodeAt(index) === newline && isSafeBoundary(text, index + 1)) return index + 1;
  }
  for (let index = from; index < Math.min(to, text.length); index++) {
    if (text.charCodeAt(index) === space && isSafeBoundary(text, index)) return index;
  }
  return -1;
}

/**
 * The last hard boundary in `(from, to]`, -1 when there is none: a piece boundary the two code
 * points around it make, whatever surrounds them. Scans backwards from `to`, never before `from`.
 * They cut text that has no safe boundary (base64, minified JSON, CJK with punctuation) without
 * walking its pieces:
 * - between a number and anything else, either way round: numbers make pieces of their own
 *   (`\p{N}{1,3}`), and no other piece takes one; but not after two or more whitespace characters
 *   (a whitespace run splits differently when a number follows it than when the text ends there);
 * - after a letter followed by what is neither a letter, a mark nor `'`: a letter piece goes on
 *   only with letters and marks (or a contraction, which starts with `'`), no other piece takes a
 *   letter, and a letter piece's one leading character is never a letter;
 * - after punctuation followed by whitespace that is no newline: a punctuation piece goes on only
 *   with punctuation and newlines (o200k: and `/`), and a letter piece only with letters and marks.
 * They are boundaries for counting only: cuts prefer the safe boundaries above, which also end
 * lines and words.
 */
export function lastHardBoundary(text: string, from: number, to: number): number {
  if (to >= text.length) return text.length;
  for (let index = to; index > Math.max(0, from); index--) if (isHardBoundary(text, index)) return index;
  return -1;
}

/** The first hard boundary (see lastHardBoundary) in `[from, to)`; -1 when there is none. */
export function firstHardBoundary(text: string, from: number, to: number): number {
  if (from <= 0) return 0;
  for (let index = from; index < Math.min(to, text.length); index++)
    if (isHardBoundary(text, index)) return index;
  return -1;
}

// --- Internal helpers ---

/**
 * Whether the position between `left` up to `leftEnd` and `right` from `rightStart` is a safe
 * boundary (isSafeBoundary's rules): it reads up to two code points before and two characters after.
 */
function isSafeBetween(left: string, leftEnd: number, right: string, rightStart: number): boolean {
  const before = left.charCodeAt(leftEnd - 1);
  if (before === newline) {
    const after = right[rightStart] ?? '';
    if (after === '/') return false;
    if (!whitespace.test(after)) return true;
    return after !== '\n' && after !== '\r' && endsPunctuation(left, leftEnd - 1);
  }
  if (right.charCodeAt(rightStart) !== space) return false;
  return letterOrDigit.test(left[leftEnd - 1] ?? '') && letter.test(right[rightStart + 1] ?? '');
}

/** Whether the code point before `index` is punctuation that no letter piece takes (not a mark). */
function endsPunctuation(text: string, index: number): boolean {
  if (index <= 0) return false;
  const bits = bitsOf(codePointBefore(text, index));
  return (bits & punctBit) !== 0 && (bits & letterish) === 0;
}

function isHardBoundary(text: string, index: number): boolean {
  const unit = text.charCodeAt(index);
  // Never between the halves of a pair.
  if (unit >= 0xdc00 && unit <= 0xdfff) {
    const high = text.charCodeAt(index - 1);
    if (high >= 0xd800 && high <= 0xdbff) return false;
  }
  const before = bitsOf(codePointBefore(text, index));
  const after = bitsOf(codePointAt(text, index));
  if ((before & numberBit) !== (after & numberBit)) {
    // Before a number, whitespace is a boundary only on its own: a run of two or more gives its
    // last character a piece of its own in the whole (`\s+(?!\S)` stops short of it), but ends a
    // part cut there as one piece (`"a  15"` is 4 tokens whole, 2 + 1 in halves).
    const spaceRun = (before & spaceBit) !== 0 && (bitsOf(codePointBefore(text, index - 1)) & spaceBit) !== 0;
    return !((after & numberBit) !== 0 && spaceRun);
  }
  if ((before & letterBit) !== 0) return (after & letterish) === 0 && unit !== apostrophe;
  return (before & punctBit) !== 0 && (after & spaceBit) !== 0 && (after & newlineBit) === 0;
}

const apostrophe = 0x27;

const newline = 0x0a;
const space = 0x20;
const whitespace = /^\s$/u;
const letter = /^\p{L}$/u;
const letterOrDigit = /^[\p{L}\p{N}]$/u;
