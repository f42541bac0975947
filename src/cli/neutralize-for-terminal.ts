// The SGR codes create-style paints with: bold, dim, red, green, yellow and their resets.
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the colour codes kept
const styleCode = /(\u001b\[(?:1|2|22|31|32|33|39)m)/;
// The control class of neutralizeText (C0 but tab and LF, lone CR, DEL, C1, bidi, separators).
const control =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters neutralized
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]|\r(?!\n)/gu;

/**
 * Text bound for a terminal: every control character a server may have sent is written
 * `\u{hex}` as `neutralizeText` writes it (no cursor moves, window titles, hyperlinks, bidi
 * reordering or erased lines), except this CLI's own colour codes, which only paint. Text the
 * provider already neutralized passes unchanged.
 */
export function neutralizeForTerminal(text: string): string {
  return text
    .split(styleCode)
    .map((piece, index) =>
      index % 2 === 1
        ? piece
        : piece.replace(control, (character) => `\\u{${(character.codePointAt(0) ?? 0).toString(16)}}`),
    )
    .join('');
}

/** `--json` output with C1, DEL and bidi controls written as `\uXXXX` (JSON already escapes C0). */
export function toTerminalJson(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? 'null').replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g,
    (character) => `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}
