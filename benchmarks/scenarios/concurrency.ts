import { createTiktokenTokenizer } from '../../src/index.js';
import { createBenchProvider } from '../support/bench-provider.js';
import { startBulkServer } from '../support/bulk-server.js';
import { percentile, round } from '../support/measure.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

/**
 * 100 conversations start a turn at the same moment, all sharing 20 pinned 16 KB resources:
 * single-flight must cause exactly one read per resource. Turn latency p50/p99.
 */
export async function run(_options: { quick: boolean }): Promise<Figures> {
  const tokenizer = createTiktokenTokenizer();
  const server = startBulkServer(20, 16 * 1024);
  const bench = await createBenchProvider({ ...server, tokenizer, maxTokens: 8000, cache: {} });
  try {
    const latencies: number[] = [];
    await Promise.all(
      Array.from({ length: 100 }, async (_, index) => {
        const started = performance.now();
        await bench.provider.provide({ pipelineId: 'bench', conversationId: `c-${index}` });
        latencies.push(performance.now() - started);
      }),
    );
    const reads = server.reads();
    return {
      conversations: 100,
      distinct: server.uris.length,
      reads,
      target: 'reads = 20',
      met: reads === server.uris.length,
      p50Ms: round(percentile(latencies, 50), 1),
      p99Ms: round(percentile(latencies, 99), 1),
    };
  } finally {
    await bench.close();
    tokenizer.dispose();
  }
}

export const readme: ReadmeRow = {
  what: '100 conversations at once sharing 20 pins',
  result: (figures) =>
    `**${figures.reads} reads** at the server for ${figures.distinct} distinct resources; turn latency p50 ${figures.p50Ms} ms, p99 ${figures.p99Ms} ms (all 100 on one core)`,
  target: '20',
};
