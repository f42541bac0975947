/** Styles one cell's text (never its padding, so colour codes cannot break the alignment). */
export type PaintCell = (text: string, row: number, column: number) => string;

/** Aligns rows of cells into columns under a header; numbers are right-aligned. */
export function formatTable(
  header: readonly string[],
  rows: readonly (readonly (string | number)[])[],
  paint: PaintCell = (text) => text,
): string {
  const cells = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  const numeric = header.map(
    (_, column) => rows.length > 0 && rows.every((row) => typeof row[column] === 'number'),
  );
  return cells
    .map((row, rowIndex) =>
      row
        .map((cell, column) => {
          const padding = ' '.repeat((widths[column] ?? 0) - cell.length);
          // Row -1 is the header.
          const painted = paint(cell, rowIndex - 1, column);
          return numeric[column] ? padding + painted : painted + padding;
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
