import { describe, expect, it, onTestFinished } from 'vitest';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { RedisSharedTier } from '../../src/redis.js';
import { scriptedMemoryConfig } from '../mcp/support/scripted-server.js';
import { sharedTokenizer } from '../support/provider-harness.js';
import { freshPrefix, testRedisUrl } from './support/redis-test.js';

const uri = 'crm://accounts';

function crmServer(tenant: string) {
  const reads: string[] = [];
  const config = scriptedMemoryConfig({
    contents: { [uri]: [{ uri, mimeType: 'text/plain', text: `accounts of ${tenant}` }] },
    onRead: (read) => reads.push(read),
  });
  return { config, reads };
}

/** One replica: its own registry naming a server `crm`, its own cache, one Redis for all. */
async function startReplica(mcpServers: McpServerRegistryOptions['mcpServers'], keyPrefix: string) {
  const servers = new McpServerRegistry({ mcpServers, reconnect: false });
  const shared = new RedisSharedTier({ url: testRedisUrl, keyPrefix, commandTimeoutMs: 300 });
  const provider = new ResourceContextProvider({
    servers,
    attachments: new MemoryAttachmentStore(),
    policy: new AccessPolicy({ bindings: { support: { servers: ['crm'] } } }),
    tokenizer: sharedTokenizer,
    budget: { maxTokens: 4000 },
    cache: { shared },
  });
  onTestFinished(async () => {
    provider.dispose();
    await servers.close();
    await shared.close();
  });
  await shared.ready();
  const turn = async () => {
    const { blocks, trace } = await provider.provide({
      pipelineId: 'support',
      message: { attachments: [{ server: 'crm', uri }] },
    });
    return { text: blocks.map((block) => block.text).join('\n'), entry: trace.entries[0] };
  };
  return { turn };
}

describe('replicas of different tenants behind one Redis', () => {
  it('a server named `crm` on each, but different: no shared copy crosses, each server is read', async () => {
    const keyPrefix = freshPrefix();
    const acme = crmServer('acme');
    const globex = crmServer('globex');
    const a = await startReplica({ crm: acme.config }, keyPrefix);
    const b = await startReplica({ crm: globex.config }, keyPrefix);
    const same = await startReplica({ crm: acme.config }, keyPrefix);

    expect((await a.turn()).entry).toMatchObject({ status: 'injected', sharedCache: 'miss' });
    const other = await b.turn();
    expect(other.entry).toMatchObject({ status: 'injected', sharedCache: 'miss' });
    expect(other.text).toContain('accounts of globex');
    expect(other.text).not.toContain('acme');
    // Configured alike, a replica still gets the fleet's copy.
    const alike = await same.turn();
    expect(alike.entry).toMatchObject({ status: 'injected', sharedCache: 'hit' });
    expect(alike.text).toContain('accounts of acme');
    expect([acme.reads, globex.reads]).toEqual([[uri], [uri]]);
  });
});
