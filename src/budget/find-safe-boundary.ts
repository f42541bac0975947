import { isWhiteSpace } from './is-white-space.js';
import type { Tokenizer } from './tokenizer.js';

/**
 * Where text can be cut into pieces that tokenize exactly like the whole.
 *
 * tiktoken's pre-tokenizer (o200k_base and cl100k_base) splits text into pieces by a regex and
 * BPE-merges only inside a piece, so counting piece by piece is exact when every cut falls on a
 * piece boundary. Two kinds of position are boundaries whatever surrounds them:
 * - after a newline followed by a character that is neither whitespace nor `/` (a newline run
 *   `\s*[\r\n]+` ends there, and punctuation pieces absorb trailing `[\r\n/]*`, so `"\n/"` can
 *   merge and is not safe);
 * - before a space that follows a letter or digit and precedes a letter (`" word"` is one piece
 *   that starts at the space).
 */
export function isSafeBoundary(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return true;
  const before = text.charCodeAt(index - 1);
  if (before === newline) {
    const after = text[index] ?? '';
    return after !== '/' && !whitespace.test(after);
  }
  if (text.charCodeAt(index) !== space) return false;
  return letterOrDigit.test(text[index - 1] ?? '') && letter.test(text[index + 1] ?? '');
}

/**
 * Under o200k_base and cl100k_base, also boundaries whatever surrounds them (piece edges):
 * - a space after a character that is not whitespace. No piece of their pre-tokenizers holds a
 *   space after its first character unless it is all whitespace (letter and punctuation pieces
 *   take one optional space in front; what follows is letters, marks, a contraction or a
 *   `[\r\n/]` tail), and the one lookahead (`\s+(?!\S)`) ends whitespace pieces only: the text
 *   before the space splits as it would alone, and a piece starts at the space;
 * - either end of a run of ASCII digits between ASCII characters that are neither whitespace
 *   nor digits (`="~|9901|"`, `doc/|0|"`): digits form pieces of their own (`\p{N}{1,3}`,
 *   grouped from the run's start, which the cut does not move), and no letter or punctuation
 *   piece holds a digit.
 * Wider than isSafeBoundary (after `"` before ` uri=`, around numbers), so used only for
 * tokenizers that declare it (`Tokenizer.splitsAtPieceEdges`, see boundaryTestFor).
 */
export function isPieceEdge(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return true;
  const before = text.charCodeAt(index - 1);
  const after = text.charCodeAt(index);
  if (after === space) return !isWhiteSpace(before);
  return (isDigit(before) && isAsciiOther(after)) || (isAsciiOther(before) && isDigit(after));
}

/**
 * The boundaries counts may be added across for `tokenizer`: isSafeBoundary's for every
 * tokenizer (the assumption tokenizer.ts states), and isPieceEdge's as well for one that
 * declares `splitsAtPieceEdges`.
 */
export function boundaryTestFor(tokenizer: Tokenizer): (text: string, index: number) => boolean {
  return tokenizer.splitsAtPieceEdges === true ? isSafeBoundaryOrPieceEdge : isSafeBoundary;
}

/** isSafeBoundary or isPieceEdge: where a tiktoken o200k/cl100k count can be split. */
export function isSafeBoundaryOrPieceEdge(text: string, index: number): boolean {
  return isPieceEdge(text, index) || isSafeBoundary(text, index);
}

/**
 * The last safe boundary in `(from, to]`, preferring newlines; -1 when there is none. Scans
 * backwards from `to`, so the work is proportional to how far back the boundary lies.
 */
export function lastSafeBoundary(text: string, from: number, to: number): number {
  if (to >= text.length) return text.length;
  for (let index = text.lastIndexOf('\n', to - 1); index >= from; index = text.lastIndexOf('\n', index - 1)) {
    if (index + 1 <= to && index + 1 > from && isSafeBoundary(text, index + 1)) return index + 1;
    if (index === 0) break;
  }
  for (let index = text.lastIndexOf(' ', to); index > from; index = text.lastIndexOf(' ', index - 1)) {
    if (isSafeBoundary(text, index)) return index;
  }
  return -1;
}

/** The first safe boundary in `[from, to)`, preferring newlines; -1 when there is none. */
export function firstSafeBoundary(text: string, from: number, to: number): number {
  if (from <= 0) return 0;
  for (
    let index = text.indexOf('\n', from - 1);
    index !== -1 && index + 1 < to;
    index = text.indexOf('\n', index + 1)
  ) {
    if (index + 1 >= from && isSafeBoundary(text, index + 1)) return index + 1;
  }
  for (
    let index = text.indexOf(' ', from);
    index !== -1 && index < to;
    index = text.indexOf(' ', index + 1)
  ) {
    if (isSafeBoundary(text, index)) return index;
  }
  return -1;
}

// --- Internal helpers ---

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Printable ASCII other than digits: letters and punctuation, never whitespace. */
function isAsciiOther(code: number): boolean {
  return code >= 0x21 && code <= 0x7e && !isDigit(code);
}

const newline = 0x0a;
const space = 0x20;
const whitespace = /^\s$/u;
const letter = /^\p{L}$/u;
const letterOrDigit = /^[\p{L}\p{N}]$/u;
