import { createTiktokenTokenizer, type McpServerConfigInput } from '../../src/index.js';
import { type BenchEra, modernEraSuffix, requireEra } from '../support/bench-era.js';
import { createBenchProvider } from '../support/bench-provider.js';
import { startBulkHttpServer } from '../support/bulk-http-server.js';
import { startBulkServer } from '../support/bulk-server.js';
import { withEncoderLoaded } from '../support/context-bench.js';
import { collectGarbage, interleavedMedians, percentile, round } from '../support/measure.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

const resourceBytes = 64 * 1024;
const pinned = 100;
const maxTokens = 50_000;

// Unmeasured turns of each provider before its windows: V8 has optimized the turn's code by then.
const warmupTurns = 2_000;
const windowCount = 9;
const roundsPerWindow = 200;

/**
 * The turn's performance guard: a repeated turn at 100 pins (nothing changed since the same turn
 * twice before: a kept turn) and a full warm turn (every cache warm, every step run:
 * `keptTurns: false`), 100 pinned 64 KB resources, a 50k budget, in-process. The two providers
 * take turns in a random order round by round (see `interleavedMedians`), so a noisy moment of a
 * shared machine falls on both; each figure is the median over windows of the window medians.
 * Reported by `npm run bench` with coldVsFloor and budget as the guard (see print-table.ts); not
 * asserted in tests. Then the same pair over Streamable HTTP on a 2025-11-25 server and on a
 * modern-only 2026-07-28 one, interleaved together (`…Http`, `…Http@2026-07-28`): reported.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  return withEncoderLoaded(async () => {
    const server = startBulkServer(pinned, resourceBytes);
    const [repeatedUs, fullUs, windows] = await repeatedAndFull(
      [{ serverConfig: server.serverConfig, era: '2025-11-25' }],
      server.uris,
      options,
    );
    // The same pair over Streamable HTTP in each era, interleaved with each other after the guard's
    // own (which is measured as before): what the era changes in a warm turn, transport held equal.
    const http = await startBulkHttpServer(pinned, resourceBytes);
    const modern = await startBulkHttpServer(pinned, resourceBytes, { era: '2026-07-28' });
    let byEra: number[];
    try {
      const configs = [http, modern].map(({ url, era }) => ({
        serverConfig: { type: 'http' as const, url },
        era,
      }));
      byEra = await repeatedAndFull(configs, server.uris, options);
    } finally {
      await http.close();
      await modern.close();
    }
    const [httpRepeatedUs = Number.NaN, httpFullUs = Number.NaN, modernRepeatedUs, modernFullUs] = byEra;
    return {
      repeatedTurnUs: round(repeatedUs ?? Number.NaN, 1),
      fullWarmTurnUs: round(fullUs ?? Number.NaN, 1),
      target: 'repeated turn at 100 pins <= 20 us; full warm turn <= 150 us',
      met: (repeatedUs ?? Number.POSITIVE_INFINITY) <= 20 && (fullUs ?? Number.POSITIVE_INFINITY) <= 150,
      pinned,
      resourceBytes,
      maxTokens,
      windows: windows ?? 0,
      era: '2025-11-25',
      repeatedTurnUsHttp: round(httpRepeatedUs, 1),
      fullWarmTurnUsHttp: round(httpFullUs, 1),
      [`repeatedTurnUsHttp${modernEraSuffix}`]: round(modernRepeatedUs ?? Number.NaN, 1),
      [`fullWarmTurnUsHttp${modernEraSuffix}`]: round(modernFullUs ?? Number.NaN, 1),
    };
  });
}

export const readme: ReadmeRow = {
  what: 'a repeated turn (nothing changed since the same turn twice before) and a full warm turn (every step run), 100 × 64 KB pins, 50k budget, in-process, interleaved',
  result: (figures) =>
    `repeated **${figures.repeatedTurnUs} µs**, full warm **${figures.fullWarmTurnUs} µs** (median of ${figures.windows} windows); ` +
    `over Streamable HTTP ${figures.repeatedTurnUsHttp} / ${figures.fullWarmTurnUsHttp} µs on 2025-11-25, ` +
    `${figures['repeatedTurnUsHttp@2026-07-28']} / ${figures['fullWarmTurnUsHttp@2026-07-28']} µs on 2026-07-28`,
  target: 'repeated ≤ 20 µs, full warm ≤ 150 µs',
};

// --- Internal helpers ---

/**
 * For each server config, a repeated (kept) and a full warm (`keptTurns: false`) provider, all
 * taking turns in one random order round by round after `warmupTurns` each: per config its
 * repeated and full warm turn in microseconds (the median over windows of the window medians),
 * then the number of windows.
 */
async function repeatedAndFull(
  servers: readonly { readonly serverConfig: McpServerConfigInput; readonly era: BenchEra }[],
  uris: readonly string[],
  options: { quick: boolean },
): Promise<number[]> {
  const benches = await Promise.all(
    servers.flatMap(({ serverConfig }) =>
      [true, false].map((kept) =>
        createBenchProvider({
          serverConfig,
          uris,
          tokenizer: createTiktokenTokenizer(),
          maxTokens,
          cache: { maxBytes: 2 * pinned * (resourceBytes + 1024) },
          ...(!kept && { keptTurns: false }),
        }),
      ),
    ),
  );
  try {
    const turn = { pipelineId: 'bench' };
    const turns = benches.map(
      ({ provider }) =>
        () =>
          provider.provide(turn),
    );
    // Two providers per server, in order: each one's first turn on a session of the server's era.
    for (const [index, each] of turns.entries())
      requireEra((await each()).trace, servers[Math.floor(index / 2)]?.era ?? '2025-11-25');
    for (const each of turns) for (let index = 0; index < warmupTurns; index++) await each();
    collectGarbage();
    const windows = await interleavedMedians(
      turns,
      options.quick ? 3 : windowCount,
      options.quick ? 50 : roundsPerWindow,
    );
    const medianUs = (column: number) =>
      1000 *
      percentile(
        windows.map((medians) => medians[column] ?? Number.NaN),
        50,
      );
    return [...turns.map((_, column) => medianUs(column)), windows.length];
  } finally {
    for (const bench of benches) {
      await bench.close();
      bench.provider.tokenizer.dispose();
    }
  }
}
