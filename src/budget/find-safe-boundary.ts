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

// --- Internal helpers ---

const newline = 0x0a;
const space = 0x20;
const whitespace = /^\s$/u;
const letter = /^\p{L}$/u;
const letterOrDigit = /^[\p{L}\p{N}]$/u;
