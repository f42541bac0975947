/**
 * The revision a benchmark's HTTP server speaks. `2026-07-28`: the v2 server package's
 * `createMcpHandler` with `legacy: 'reject'` (the modern-only server of fixtures/modern), reached
 * by the library's `server/discover` probe; its reads carry `ttlMs` 5 min (the library's own
 * default TTL), so a warm turn is as warm as on 2025 under the spec's caching rules (an absent
 * `ttlMs` is 0).
 */
export type BenchEra = '2025-11-25' | '2026-07-28';

/** Figure names of the 2026-07-28 era carry this suffix; the rest are 2025's (see print-table.ts). */
export const modernEraSuffix = '@2026-07-28';

/** A scenario's figures measured on a 2026-07-28 server, each named with the era (`met` too; `target` is the same). */
export function withEraSuffix(figures: Readonly<Record<string, number | string | boolean>>) {
  return Object.fromEntries(
    Object.entries(figures)
      .filter(([name]) => name !== 'target')
      .map(([name, value]) => [`${name}${modernEraSuffix}`, value]),
  );
}

/**
 * Throws unless the turn's trace says every server it read from speaks `era` (its `servers`
 * section): a figure named for an era is measured on a session of that era, never on a fallback.
 */
export function requireEra(
  trace: { readonly servers?: readonly { readonly protocolVersion: string }[] },
  era: BenchEra,
): void {
  const spoken = trace.servers?.map((server) => server.protocolVersion) ?? [];
  if (spoken.length === 0 || spoken.some((version) => version !== era)) {
    throw new Error(`expected a turn on ${era} servers; its trace says ${spoken.join(', ') || 'none'}`);
  }
}
