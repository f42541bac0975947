/**
 * JSON for text a model reads (markers, tool results): `JSON.stringify`, then every character
 * that could open or close a tag (`<`, `>`, `&`), DEL and C1 controls, bidirectional controls
 * and line separators written as `\uXXXX`. Still valid JSON that parses back to the same value,
 * so a model can copy it into a tool call; never a frame's closing tag or a special token.
 */
export function toSafeJson(value: unknown): string {
  return (JSON.stringify(value) ?? 'null').replace(
    /[<>&\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g,
    (character) => `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}
