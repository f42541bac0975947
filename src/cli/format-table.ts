/** Styles one cell's text (never its padding, so colour codes cannot break the alignment). */
export type PaintCell = (text: string, row: number, column: number) => string;

/**
 * Aligns rows of cells into columns under a header; numbers (and estimates such as `~1200`) are
 * right-aligned. Widths are terminal columns: CJK and other wide characters take two.
 */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly (string | number)[])[],
  paint: PaintCell = (text) => text,
): string {
  const cells = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, column) => Math.max(...cells.map((row) => displayWidth(row[column] ?? ''))));
  const numeric = header.map(
    (_, column) =>
      rows.length > 0 &&
      rows.every((row) => typeof row[column] === 'number' || /^~\d+$/.test(String(row[column]))),
  );
  return cells
    .map((row, rowIndex) =>
      row
        .map((cell, column) => {
          const padding = ' '.repeat((widths[column] ?? 0) - displayWidth(cell));
          // Row -1 is the header.
          const painted = paint(cell, rowIndex - 1, column);
          return numeric[column] ? padding + painted : painted + padding;
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

// --- Internal helpers ---

/**
 * Terminal columns a string takes: East Asian Wide and Fullwidth characters (Unicode UAX #11)
 * and emoji take two, combining marks and zero-width characters none.
 */
function displayWidth(text: string): number {
  let width = 0;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (/\p{Mn}|\p{Me}|\u200B|\u200C|\u200D|\uFEFF/u.test(character)) continue;
    width += isWide(code) ? 2 : 1;
  }
  return width;
}

function isWide(code: number): boolean {
  return (
    (code >= 0x1100 && code <= 0x115f) || // Hangul Jamo
    (code >= 0x2e80 && code <= 0x303e) || // CJK radicals, punctuation
    (code >= 0x3041 && code <= 0x33ff) || // kana, CJK symbols
    (code >= 0x3400 && code <= 0x4dbf) || // CJK extension A
    (code >= 0x4e00 && code <= 0x9fff) || // CJK unified ideographs
    (code >= 0xa000 && code <= 0xa4cf) || // Yi
    (code >= 0xac00 && code <= 0xd7a3) || // Hangul syllables
    (code >= 0xf900 && code <= 0xfaff) || // CJK compatibility ideographs
    (code >= 0xfe30 && code <= 0xfe4f) || // CJK compatibility forms
    (code >= 0xff00 && code <= 0xff60) || // fullwidth forms
    (code >= 0xffe0 && code <= 0xffe6) ||
    (code >= 0x1f300 && code <= 0x1f64f) || // emoji
    (code >= 0x1f900 && code <= 0x1f9ff) ||
    (code >= 0x20000 && code <= 0x3fffd) // CJK extensions B and beyond
  );
}
