import { escapeUntrustedText } from './frame-resource.js';

/** An escaped prefix of a text: the whole escaped text when `whole`. */
export interface EscapedPrefix {
  readonly text: string;
  readonly whole: boolean;
  /** Characters of the raw text `text` is the escaping of. */
  readonly rawChars: number;
}

/**
 * A server's text, escaped for a frame (`escapeUntrustedText`) only as far as it is read. A turn
 * that shows the first 8k tokens of a 5 MB body escapes about that much, not 5 MB: escaping
 * scans every character and, where anything changes, copies the body (10 MB of fresh memory for
 * 5 MB of text with any non-Latin-1 character, which costs far more than the scan).
 *
 * Prefixes end at clean cuts of the raw text, where escaping the two sides apart gives what
 * escaping the whole does and the escaped text can be tokenized from (see `isCleanCut`). So every
 * prefix is a prefix of the whole escaped text, a longer one extends a shorter one, and counts
 * made on one hold for the others and for the whole. A text with no clean cut past the wanted
 * length (base64, minified JSON on one line) is escaped whole.
 */
export class EscapedText {
  #shown = '';
  // Raw characters `#shown` is the escaping of.
  #shownEnd = 0;
  // Whether escaping changed anything in `#shown` (else it is the raw text's own prefix).
  #changed = false;
  #whole: string | undefined;

  constructor(readonly raw: string) {}

  /** The whole text, escaped. */
  get text(): string {
    if (this.#whole === undefined) this.#whole = this.#through(this.raw.length);
    return this.#whole;
  }

  /** An escaped prefix covering at least `rawChars` characters of the raw text. */
  prefix(rawChars: number): EscapedPrefix {
    if (this.#whole !== undefined) return { text: this.#whole, whole: true, rawChars: this.raw.length };
    // At least one character: an empty prefix would tell a caller nothing (and of an empty
    // text, the whole is the answer).
    if (Math.max(1, rawChars) > this.#shownEnd) {
      const end = nextCleanCut(this.raw, Math.max(1, rawChars));
      if (end >= this.raw.length) return { text: this.text, whole: true, rawChars: this.raw.length };
      this.#shown = this.#through(end);
      this.#shownEnd = end;
    }
    return { text: this.#shown, whole: false, rawChars: this.#shownEnd };
  }

  /** The escaping of `raw[0, end)`: what is shown already, and the rest from its clean end. */
  #through(end: number): string {
    const start = this.#shownEnd;
    const rest = this.raw.slice(start, end);
    const escaped = escapeUntrustedText(rest);
    if (escaped !== rest) this.#changed = true;
    // Nothing changed anywhere: a view of the raw text, no copy.
    return this.#changed ? this.#shown + escaped : this.raw.slice(0, end);
  }
}

/**
 * Whether `raw` can be cut at `at` for escaping and counting: it follows a newline, it is no
 * whitespace or `/` (so the escaped text is a piece boundary there: see find-safe-boundary.ts),
 * and no `<` before it is followed only by whitespace and `/` up to it (a frame tag's `<`, spaces,
 * `/` and name may span lines). Special tokens, escape sequences and controls are single lines
 * and single characters, so escaping never looks across such a cut.
 */
export function isCleanCut(raw: string, at: number): boolean {
  if (at <= 0 || at >= raw.length || raw.charCodeAt(at - 1) !== newline) return false;
  if (spaceOrSlash.test(raw[at] ?? '')) return false;
  let before = at - 1;
  while (before >= 0 && spaceOrSlash.test(raw[before] ?? '')) before--;
  return before < 0 || raw.charCodeAt(before) !== lessThan;
}

// --- Internal helpers ---

const newline = 0x0a;
const lessThan = 0x3c;
const spaceOrSlash = /^[\s/]$/;

/** The first clean cut at or after `from`, or the text's length when there is none. */
function nextCleanCut(raw: string, from: number): number {
  for (let index = raw.indexOf('\n', from - 1); index !== -1; index = raw.indexOf('\n', index + 1)) {
    if (isCleanCut(raw, index + 1)) return index + 1;
  }
  return raw.length;
}
