import { describe, expect, it, onTestFinished } from 'vitest';
import { startGitNexusFixture } from '../../fixtures/index.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { RedisSharedTier } from '../../src/redis.js';
import { sharedTokenizer } from '../support/provider-harness.js';
import { freshPrefix, testRedisUrl } from './support/redis-test.js';

/** One host replica: its own registry (sessions), cache and Redis connections; shared pins. */
async function startReplica(
  serverConfig: never,
  attachments: MemoryAttachmentStore,
  url: string,
  keyPrefix: string,
) {
  const servers = new McpServerRegistry({ mcpServers: { gitnexus: serverConfig } });
  const shared = new RedisSharedTier({ url, keyPrefix, commandTimeoutMs: 300 });
  const provider = new ResourceContextProvider({
    servers,
    attachments,
    policy: new AccessPolicy({ bindings: { support: { servers: ['gitnexus'] } } }),
    tokenizer: sharedTokenizer,
    budget: { maxTokens: 8000 },
    cache: { shared },
  });
  onTestFinished(async () => {
    provider.dispose();
    await servers.close();
    await shared.close();
  });
  return { provider, shared };
}

describe('several replicas behind one Redis', () => {
  it('pins read by one replica are shared hits on the others: one read per resource at the server', async () => {
    const fixture = await startGitNexusFixture({ transport: 'memory' });
    onTestFinished(() => fixture.close());
    const attachments = new MemoryAttachmentStore();
    for (const uri of ['gitnexus://repos', 'gitnexus://setup']) {
      await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri });
    }
    const keyPrefix = freshPrefix();
    const a = await startReplica(fixture.serverConfig as never, attachments, testRedisUrl, keyPrefix);
    const b = await startReplica(fixture.serverConfig as never, attachments, testRedisUrl, keyPrefix);
    await Promise.all([a.shared.ready(), b.shared.ready()]);

    const first = await a.provider.provide({ pipelineId: 'support', conversationId: 'c-1' });
    const second = await b.provider.provide({ pipelineId: 'support', conversationId: 'c-2' });
    expect(first.trace.entries.map((entry) => entry.sharedCache)).toEqual(['miss', 'miss']);
    expect(second.trace.entries.map((entry) => [entry.status, entry.sharedCache])).toEqual([
      ['injected', 'hit'],
      ['injected', 'hit'],
    ]);
    expect(second.trace.entries.map((entry) => entry.sha256)).toEqual(
      first.trace.entries.map((entry) => entry.sha256),
    );
    expect(fixture.readCount()).toBe(2);
  });

  it('Redis down: turns go on with local caches, traced as unavailable, nothing thrown', async () => {
    const fixture = await startGitNexusFixture({ transport: 'memory' });
    onTestFinished(() => fixture.close());
    const attachments = new MemoryAttachmentStore();
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    const alone = await startReplica(fixture.serverConfig as never, attachments, 'redis://127.0.0.1:1', 'x:');

    const first = await alone.provider.provide({ pipelineId: 'support' });
    expect(first.trace.entries).toMatchObject([
      { status: 'injected', cache: 'miss', sharedCache: 'unavailable' },
    ]);
    const second = await alone.provider.provide({ pipelineId: 'support' });
    expect(second.trace.entries).toMatchObject([{ status: 'injected', cache: 'hit' }]);
    expect(second.blocks).toEqual(first.blocks);
    expect(fixture.readCount()).toBe(1);
  });
});
