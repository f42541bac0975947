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
 *
 * Bodies pass through here as far as a turn shows them (escaped-text.ts), a whole body when it
 * is shown whole, so each kind of match is looked for on its own with the quickest search that
 * finds it — one character-class scan, `indexOf` for the rest — and text with nothing to escape
 * comes back as the same string. The result is exactly that of one replace with the rule's
 * regular expression (a property test holds it to that).
 */
export function neutralizeText(text: string): string {
  let control = nextControl(text, 0);
  let loneReturn = nextLoneReturn(text, 0);
  let special = nextSpecialToken(text, 0);
  let backslash = text.indexOf('\\u{');
  let cursor = 0;
  let neutral = '';
  for (;;) {
    const at = earliest(earliest(control, loneReturn), earliest(special, backslash));
    if (at === -1) break;
    neutral += text.slice(cursor, at);
    if (at === special) {
      neutral += '<\\u{7c}';
      cursor = at + 2;
    } else {
      neutral += `\\u{${text.charCodeAt(at).toString(16)}}`;
      cursor = at + 1;
    }
    // A search behind the cursor starts again from it: matches never overlap, as in a replace.
    if (control !== -1 && control < cursor) control = nextControl(text, cursor);
    if (loneReturn !== -1 && loneReturn < cursor) loneReturn = nextLoneReturn(text, cursor);
    if (special !== -1 && special < cursor) special = nextSpecialToken(text, cursor);
    if (backslash !== -1 && backslash < cursor) backslash = text.indexOf('\\u{', cursor);
  }
  return cursor === 0 ? text : neutral + text.slice(cursor);
}

/** The inverse of `neutralizeText`: every `\u{HEX}` becomes its character again. */
export function restoreText(text: string): string {
  return text.replace(/\\u\{([0-9a-f]{1,6})\}/g, (_, hex: string) =>
    String.fromCodePoint(Number.parseInt(hex, 16)),
  );
}

// --- Internal helpers ---

// Every character of the class is one UTF-16 code unit and none is a surrogate: searched code
// unit by code unit (no `u` flag, which scans slower), it matches where the rule's `u` pattern does.
const controlClass =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters neutralized
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
// A name of 1 to 64 code points (hence `u`) between `<|` and `|>`, tried only where `<|` is.
const specialTokenAt = /<\|(?=[^|<>\s]{1,64}\|>)/uy;

function nextControl(text: string, from: number): number {
  controlClass.lastIndex = from;
  return controlClass.exec(text)?.index ?? -1;
}

// A lone CR can overwrite a terminal line; CR LF is an ordinary line end.
function nextLoneReturn(text: string, from: number): number {
  for (let at = text.indexOf('\r', from); at !== -1; at = text.indexOf('\r', at + 1)) {
    if (text.charCodeAt(at + 1) !== 0x0a) return at;
  }
  return -1;
}

function nextSpecialToken(text: string, from: number): number {
  for (let at = text.indexOf('<|', from); at !== -1; at = text.indexOf('<|', at + 1)) {
    specialTokenAt.lastIndex = at;
    if (specialTokenAt.test(text)) return at;
  }
  return -1;
}

/** The smaller of two positions, -1 standing for "none". */
function earliest(a: number, b: number): number {
  return a === -1 ? b : b === -1 || a < b ? a : b;
}
