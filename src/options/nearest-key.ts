/**
 * The known key a misspelt one most likely meant: the closest by edit distance, when it is
 * close enough to be a typo (at most a third of the longer name's letters, at least one),
 * or when one is the other plus a unit suffix (`readTimeout` → `readTimeoutMs`).
 */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const candidate = name.toLowerCase();
    const prefix =
      Math.min(lower.length, candidate.length) >= 3 &&
      (candidate.startsWith(lower) || lower.startsWith(candidate));
    if (candidate === lower || prefix) {
      const distance = candidate === lower ? 0 : 1;
      if (!best || distance < best.distance) best = { name, distance };
      continue;
    }
    const distance = editDistance(lower, candidate);
    const allowed = Math.max(1, Math.floor(Math.max(lower.length, candidate.length) / 3));
    if (distance <= allowed && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** `unknown key; did you mean "args"? (known: …)`: what an option error says about an unknown key. */
export function describeUnknownKey(key: string, known: readonly string[]): string {
  const suggestion = nearestKey(key, known);
  const knownList = known.length > 0 ? ` (known: ${known.join(', ')})` : '';
  return `unknown key${suggestion ? `; did you mean "${suggestion}"?` : ''}${knownList}`;
}

// --- Internal helpers ---

/** Levenshtein distance, with a transposition counting as one edit (`comamnd`). */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const columns = b.length + 1;
  const table: number[][] = Array.from({ length: rows }, (_, row) =>
    Array.from({ length: columns }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)),
  );
  for (let row = 1; row < rows; row++) {
    for (let column = 1; column < columns; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      const current = table[row] as number[];
      const previous = table[row - 1] as number[];
      let value = Math.min(
        (previous[column] as number) + 1,
        (current[column - 1] as number) + 1,
        (previous[column - 1] as number) + cost,
      );
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) {
        value = Math.min(value, ((table[row - 2] as number[])[column - 2] as number) + 1);
      }
      current[column] = value;
    }
  }
  return (table[rows - 1] as number[])[columns - 1] as number;
}
