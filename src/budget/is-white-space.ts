/**
 * Whether a UTF-16 code unit is in the Unicode White_Space property: tiktoken's `\s` (the Rust
 * regex crate's), by char code. JavaScript's `\s` differs from it (it lacks U+0085 and has
 * U+FEFF), and a regex per character would cost more than the scans that ask.
 */
export function isWhiteSpace(code: number): boolean {
  if (code === 0x20 || (code >= 0x09 && code <= 0x0d)) return true;
  if (code < 0x85) return false;
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}
