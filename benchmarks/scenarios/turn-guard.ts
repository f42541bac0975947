import { createTiktokenTokenizer } from '../../src/index.js';
import { createBenchProvider } from '../support/bench-provider.js';
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
 * asserted in tests.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  return withEncoderLoaded(async () => {
    const server = startBulkServer(pinned, resourceBytes);
    const benches = await Promise.all(
      [true, false].map((kept) =>
        createBenchProvider({
          serverConfig: server.serverConfig,
          uris: server.uris,
          tokenizer: createTiktokenTokenizer(),
          maxTokens,
          cache: { maxBytes: 2 * pinned * (resourceBytes + 1024) },
          ...(!kept && { keptTurns: false }),
        }),
      ),
    );
    try {
      const turn = { pipelineId: 'bench' };
      const turns = benches.map(
        ({ provider }) =>
          () =>
            provider.provide(turn),
      );
      for (const each of turns) for (let index = 0; index < warmupTurns; index++) await each();
      collectGarbage();
      const windows = await interleavedMedians(
        turns,
        options.quick ? 3 : windowCount,
        options.quick ? 50 : roundsPerWindow,
      );
      const repeatedUs =
        1000 *
        percentile(
          windows.map(([repeated = Number.NaN]) => repeated),
          50,
        );
      const fullUs =
        1000 *
        percentile(
          windows.map(([, full = Number.NaN]) => full),
          50,
        );
      return {
        repeatedTurnUs: round(repeatedUs, 1),
        fullWarmTurnUs: round(fullUs, 1),
        target: 'repeated turn at 100 pins <= 20 us; full warm turn <= 150 us',
        met: repeatedUs <= 20 && fullUs <= 150,
        pinned,
        resourceBytes,
        maxTokens,
        windows: windows.length,
      };
    } finally {
      for (const bench of benches) {
        await bench.close();
        bench.provider.tokenizer.dispose();
      }
    }
  });
}

export const readme: ReadmeRow = {
  what: 'a repeated turn (nothing changed since the same turn twice before) and a full warm turn (every step run), 100 × 64 KB pins, 50k budget, in-process, interleaved',
  result: (figures) =>
    `repeated **${figures.repeatedTurnUs} µs**, full warm **${figures.fullWarmTurnUs} µs** (median of ${figures.windows} windows)`,
  target: 'repeated ≤ 20 µs, full warm ≤ 150 µs',
};
