// One host replica for the `replicas` benchmark, in its own process (forked with IPC):
// `replica-host.ts <index> <mcp-url> <postgres-url> <schema> <redis-url|none> <key-prefix>`.
// Pins come from PostgreSQL; the content cache is local, with Redis behind it unless "none".

import { ContentCache } from '../../../src/cache.js';
import {
  AccessPolicy,
  createTiktokenTokenizer,
  McpServerRegistry,
  ResourceContextProvider,
} from '../../../src/index.js';
import { PostgresAttachmentStore } from '../../../src/postgres.js';
import { RedisSharedTier } from '../../../src/redis.js';
import type { HostCommand, HostReport } from './host-messages.js';

const [index = '0', mcpUrl = '', postgresUrl = '', schema = '', redisUrl = 'none', keyPrefix = ''] =
  process.argv.slice(2);
const now = () => performance.timeOrigin + performance.now();
const send = (report: HostReport) => process.send?.(report);

const attachments = await PostgresAttachmentStore.open({ connectionString: postgresUrl, schema });
const shared = redisUrl === 'none' ? undefined : new RedisSharedTier({ url: redisUrl, keyPrefix });
await shared?.ready();
const cache = new ContentCache(shared ? { shared } : {});
// The encoder loads once per process (~1 s): before the measured turns, not inside them.
const tokenizer = createTiktokenTokenizer();
await tokenizer.count('warm up');
const servers = new McpServerRegistry({ mcpServers: { bench: { type: 'http', url: mcpUrl } } });
const provider = new ResourceContextProvider({
  servers,
  attachments,
  policy: new AccessPolicy({ bindings: { support: { servers: ['bench'] } } }),
  tokenizer,
  budget: { maxTokens: 100_000 },
  cache,
  serverInstructions: false,
});
// An invalidation another replica published, applied here: the entry is gone on this replica.
cache.on('cache-invalidated', (event) => {
  if (event.reason.includes('another replica') && event.uri !== undefined)
    send({ type: 'dropped', uri: event.uri, at: now(), entries: event.entries });
});

process.on('message', async (command: HostCommand) => {
  if (command.type === 'turns') {
    const latencies = await Promise.all(
      Array.from({ length: command.conversations }, async (_, conversation) => {
        const started = performance.now();
        const { trace } = await provider.provide({
          pipelineId: 'support',
          conversationId: `c-${index}-${command.round}-${conversation}`,
        });
        const injected = trace.entries.filter((entry) => entry.status === 'injected').length;
        if (injected !== trace.entries.length)
          throw new Error(`replica ${index}: ${injected} of ${trace.entries.length} injected`);
        return performance.now() - started;
      }),
    );
    send({ type: 'turns', latencies });
  } else if (command.type === 'cold-turns') {
    // A turn on a replica whose local cache is empty (new, restarted, or evicted): its content
    // comes from the fleet's shared copy, or from the server without one.
    const latencies: number[] = [];
    for (let sample = 0; sample < command.samples; sample++) {
      cache.clear();
      const started = performance.now();
      await provider.provide({ pipelineId: 'support', conversationId: `cold-${index}-${sample}` });
      latencies.push(performance.now() - started);
    }
    send({ type: 'turns', latencies });
  } else if (command.type === 'invalidate') {
    // What this replica's session does on `notifications/resources/updated`.
    const at = now();
    cache.invalidateResource('bench', command.uri);
    send({ type: 'invalidated', uri: command.uri, at });
  } else if (command.type === 'close') {
    provider.dispose();
    await servers.close();
    await shared?.close();
    await attachments.close();
    process.exit(0);
  }
});
send({ type: 'ready' });
