import { ContentCache, invalidateOnNotifications } from '../../src/cache.js';
import { McpServerRegistry } from '../../src/index.js';
import { startBulkServer } from '../support/bulk-server.js';
import { percentile, round } from '../support/measure.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

/**
 * Time from the server sending `notifications/resources/updated` to the cache dropping the
 * entry, over a real MCP session (in-process transport). p50/p99 over many notifications.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const samples = options.quick ? 200 : 2000;
  const server = startBulkServer(1, 1024);
  const uri = server.uris[0] as string;
  const servers = new McpServerRegistry({ mcpServers: { bulk: server.serverConfig } });
  const cache = new ContentCache();
  const detach = invalidateOnNotifications(servers, cache);
  const latencies: number[] = [];
  try {
    for (let index = 0; index < samples; index++) {
      await cache.read({ server: 'bulk', uri }, () => servers.readResource('bulk', uri));
      const dropped = new Promise<number>((resolve) =>
        cache.once('cache-invalidated', () => resolve(performance.now())),
      );
      const sent = performance.now();
      await server.notifyUpdated(uri);
      latencies.push((await dropped) - sent);
    }
  } finally {
    detach();
    await servers.close();
  }
  const p99Ms = percentile(latencies, 99);
  return {
    samples,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(p99Ms),
    maxMs: round(Math.max(...latencies)),
    target: 'p99 <= 5 ms',
    met: p99Ms <= 5,
  };
}

export const readme: ReadmeRow = {
  what: '`notifications/resources/updated` → cache entry dropped',
  result: (figures) => `${figures.samples} samples: p50 **${figures.p50Ms} ms**, p99 **${figures.p99Ms} ms**`,
  target: 'p99 ≤ 5 ms',
};
