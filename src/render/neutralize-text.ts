/**
 * The rule for characters a server controls that must not reach a model or a terminal as they
 * are (documented in the README, "Untrusted characters"):
 *
 * - C0 controls other than tab, line feed and a carriage return before a line feed; DEL; the C1
 *   controls U+0080–U+009F; the bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
 *   U+2066–U+2069); and U+2028/U+2029 become `\u{HEX}` (lower-case hex, no padding).
 * - Special-token text, `<|` followed by a name and `|>` (`<|endoftext|>`, `<|im_start|>`), has
 *   its first `|` written `\u{7c}`: the text stays readable, no tokenizer sees a special token.
 * - A backslash that starts `u{` in the original is written `\u{5c}`, so the rule is reversible:
 *   `restoreText(neutralizeText(text)) === text` for every string.
 */
export function neutralizeText(text: string): string {
  return unsafe.test(text) ? text.replace(unsafeGlobal, escapeMatch) : text;
}

/** The inverse of `neutralizeText`: every `\u{HEX}` becomes its character again. */
export function restoreText(text: string): string {
  return text.replace(/\\u\{([0-9a-f]{1,6})\}/g, (_, hex: string) =>
    String.fromCodePoint(Number.parseInt(hex, 16)),
  );
}

// --- Internal helpers ---

const controls = '\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f';
const bidi = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069\\u2028\\u2029';
// A lone CR can overwrite a terminal line; CR LF is an ordinary line end.
const source = `[${controls}${bidi}]|\\r(?!\\n)|<\\|(?=[^|<>\\s]{1,64}\\|>)|\\\\(?=u\\{)`;
const unsafe = new RegExp(source, 'u');
const unsafeGlobal = new RegExp(source, 'gu');

function escapeMatch(match: string): string {
  if (match === '<|') return '<\\u{7c}';
  return `\\u{${(match.codePointAt(0) ?? 0).toString(16)}}`;
}
