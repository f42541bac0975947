import { Redis } from 'ioredis';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startFaultFixture } from '../../fixtures/index.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { RedisSharedTier } from '../../src/redis.js';
import { watchProcess } from '../faults/fault-harness.js';
import { hostileMessages } from '../support/hostile-fleet-input.js';
import { sharedTokenizer } from '../support/provider-harness.js';
import { freshPrefix, testRedisUrl } from './support/redis-test.js';

describe('RedisSharedTier: the invalidation channel is untrusted input', () => {
  it('hostile messages published while a turn runs: none throws, each is dropped and counted, the turn injects', async () => {
    const watcher = watchProcess();
    onTestFinished(() => watcher.stop());
    const fixture = await startFaultFixture('memory', {
      resources: {
        'fault://slow': { kind: 'slow', delayMs: 400, text: 'read while the channel is hostile' },
      },
    });
    const servers = new McpServerRegistry({ mcpServers: { faulty: fixture.serverConfig } });
    const keyPrefix = freshPrefix();
    const shared = new RedisSharedTier({ url: testRedisUrl, keyPrefix });
    const provider = new ResourceContextProvider({
      servers,
      attachments: new MemoryAttachmentStore(),
      policy: new AccessPolicy({ bindings: { support: { servers: ['faulty'] } } }),
      tokenizer: sharedTokenizer,
      budget: { maxTokens: 8000 },
      cache: { shared },
    });
    onTestFinished(async () => {
      provider.dispose();
      await servers.close();
      await shared.close();
      await fixture.close();
    });
    await shared.ready();
    const publisher = new Redis(testRedisUrl);
    onTestFinished(() => publisher.disconnect());

    const turn = provider.provide({
      pipelineId: 'support',
      message: { attachments: [{ server: 'faulty', uri: 'fault://slow' }] },
    });
    for (const message of hostileMessages) await publisher.publish(`${keyPrefix}invalidations`, message);
    await waitFor(() => shared.metrics.malformedMessages === hostileMessages.length);
    const result = await turn;

    expect(result.trace.entries).toMatchObject([{ status: 'injected', sharedCache: 'miss' }]);
    expect(result.blocks.map((block) => block.text).join('')).toContain('read while the channel is hostile');
    expect(shared.metrics).toMatchObject({ malformedMessages: hostileMessages.length, received: 0 });
    expect(watcher.problems).toEqual([]);
    // The subscriber is still listening: a well-formed message is applied.
    await publisher.publish(
      `${keyPrefix}invalidations`,
      JSON.stringify({
        origin: 'another',
        sentAt: Date.now(),
        invalidation: { kind: 'list-changed', server: 's' },
      }),
    );
    await waitFor(() => shared.metrics.received === 1);
    expect(watcher.problems).toEqual([]);
  }, 30_000);
});

async function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
