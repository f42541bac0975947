import { Server } from '@modelcontextprotocol/server';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startStatelessServer } from '../../fixtures/index.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { ContentCache } from '../../src/cache/content-cache.js';
import type { CredentialSource } from '../../src/credentials/credential-source.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { scriptedMemoryConfig } from '../mcp/support/scripted-server.js';
import { sharedTokenizer } from '../support/provider-harness.js';

const uri = 'crm://accounts';

/** A real in-process server named `crm` by its registry, whose one resource says whose it is. */
function crmServer(tenant: string) {
  const reads: string[] = [];
  const config = scriptedMemoryConfig({
    resources: [{ uri, name: 'accounts' }],
    contents: { [uri]: [{ uri, mimeType: 'text/plain', text: `accounts of ${tenant}` }] },
    onRead: (read) => reads.push(read),
  });
  return { config, reads };
}

/** One host tenant: its own registry (naming a server `crm`) and provider, over a given cache. */
function tenantProvider(
  mcpServers: McpServerRegistryOptions['mcpServers'],
  cache: ContentCache,
  registry: Omit<McpServerRegistryOptions, 'mcpServers'> = {},
) {
  const servers = new McpServerRegistry({ mcpServers, reconnect: false, ...registry });
  const attachments = new MemoryAttachmentStore();
  const provider = new ResourceContextProvider({
    servers,
    attachments,
    policy: new AccessPolicy({ bindings: { support: { servers: ['crm'] } } }),
    tokenizer: sharedTokenizer,
    budget: { maxTokens: 4000 },
    cache,
  });
  onTestFinished(async () => {
    provider.dispose();
    await servers.close();
  });
  const turn = async () => {
    const { blocks, trace } = await provider.provide({
      pipelineId: 'support',
      message: { attachments: [{ server: 'crm', uri }] },
    });
    return { text: blocks.map((block) => block.text).join('\n'), entry: trace.entries[0] };
  };
  return { servers, provider, turn };
}

/**
 * A real Streamable HTTP server (127.0.0.1) whose one resource depends on the API key the
 * session presents: one URL, a tenant per key.
 */
async function startKeyedServer() {
  const reads: string[] = [];
  const host = await startStatelessServer({
    createServer: () => {
      const server = new Server({ name: 'crm', version: '1.0.0' }, { capabilities: { resources: {} } });
      server.setRequestHandler('resources/read', (request, ctx) => {
        const key = ctx.http?.req?.headers.get('x-api-key') ?? 'none';
        reads.push(key);
        // Named by the tenant, not the key: the registry redacts a credential a server echoes.
        const text = `accounts for ${key.replace('key-of-', 'tenant ')}`;
        return { contents: [{ uri: request.params.uri, mimeType: 'text/plain', text }] };
      });
      return server;
    },
  });
  onTestFinished(() => host.close());
  return { url: host.url, reads };
}

describe('one ContentCache shared by providers', () => {
  it('two registries each naming a different server `crm`: each tenant gets its own content, each server is read', async () => {
    const cache = new ContentCache();
    const acme = crmServer('acme');
    const globex = crmServer('globex');
    const a = tenantProvider({ crm: acme.config }, cache);
    const b = tenantProvider({ crm: globex.config }, cache);

    const first = await a.turn();
    const second = await b.turn();
    expect(first.text).toContain('accounts of acme');
    expect(second.text).toContain('accounts of globex');
    expect(second.text).not.toContain('acme');
    expect(second.entry).toMatchObject({ status: 'injected', cache: 'miss' });
    expect(acme.reads).toEqual([uri]);
    expect(globex.reads).toEqual([uri]);

    // Each tenant's own copy is a hit for that tenant, and only that tenant.
    expect((await a.turn()).text).toContain('accounts of acme');
    expect((await b.turn()).entry).toMatchObject({ cache: 'hit' });
    expect((await b.turn()).text).toContain('accounts of globex');
    expect([acme.reads.length, globex.reads.length]).toEqual([1, 1]);
  });

  it('providers on one registry still share it: the second provider’s turn is a hit, one read at the server', async () => {
    const cache = new ContentCache();
    const acme = crmServer('acme');
    const servers = new McpServerRegistry({ mcpServers: { crm: acme.config }, reconnect: false });
    onTestFinished(() => servers.close());
    const providers = [1, 2].map(
      () =>
        new ResourceContextProvider({
          servers,
          attachments: new MemoryAttachmentStore(),
          policy: new AccessPolicy({ bindings: { support: { servers: ['crm'] } } }),
          tokenizer: sharedTokenizer,
          budget: { maxTokens: 4000 },
          cache,
        }),
    );
    onTestFinished(() => {
      for (const provider of providers) provider.dispose();
    });
    const turn = { pipelineId: 'support', message: { attachments: [{ server: 'crm', uri }] } };
    const first = await providers[0]?.provide(turn);
    const second = await providers[1]?.provide(turn);
    expect(first?.trace.entries[0]).toMatchObject({ status: 'injected', cache: 'miss' });
    expect(second?.trace.entries[0]).toMatchObject({ status: 'injected', cache: 'hit' });
    expect(second?.blocks).toEqual(first?.blocks);
    expect(acme.reads).toEqual([uri]);
  });

  it('two registries configured alike are one server: they share its content', async () => {
    const cache = new ContentCache();
    const acme = crmServer('acme');
    const a = tenantProvider({ crm: acme.config }, cache);
    const b = tenantProvider({ crm: acme.config }, cache);
    expect(b.servers.identityOf('crm')).toBe(a.servers.identityOf('crm'));
    await a.turn();
    const second = await b.turn();
    expect(second.entry).toMatchObject({ status: 'injected', cache: 'hit' });
    expect(acme.reads).toEqual([uri]);
  });

  it('one URL, two API keys: two tenants, each read with its own key; the identity holds no key in clear', async () => {
    const { url, reads } = await startKeyedServer();
    const cache = new ContentCache();
    const entry = (key: string) => ({ crm: { type: 'http' as const, url, headers: { 'X-API-Key': key } } });
    const a = tenantProvider(entry('key-of-acme'), cache);
    const b = tenantProvider(entry('key-of-globex'), cache);
    const again = tenantProvider(entry('key-of-acme'), cache);

    expect((await a.turn()).text).toContain('accounts for tenant acme');
    const globex = await b.turn();
    expect(globex.text).toContain('accounts for tenant globex');
    expect(globex.entry).toMatchObject({ cache: 'miss' });
    // The same URL with the same key is the same tenant's server: a hit.
    expect((await again.turn()).entry).toMatchObject({ cache: 'hit' });
    expect(reads).toEqual(['key-of-acme', 'key-of-globex']);

    const identity = a.servers.identityOf('crm');
    expect(identity).toMatch(/^server:[A-Za-z0-9_-]{43}$/);
    expect(String(identity)).not.toContain('key-of-acme');
  });

  it('one config naming `{ secret }`, two vaults (one answering asynchronously): each tenant reads with its own secret', async () => {
    const { url, reads } = await startKeyedServer();
    const cache = new ContentCache();
    const crm = {
      crm: {
        type: 'http' as const,
        url,
        auth: { type: 'apiKey' as const, header: 'X-API-Key', value: { secret: 'crm' } },
      },
    };
    const vault = (key: string, asynchronous: boolean): CredentialSource => ({
      get: (name) => (name !== 'crm' ? undefined : asynchronous ? Promise.resolve(key) : key),
    });
    const a = tenantProvider(crm, cache, { credentials: vault('key-of-acme', false) });
    const b = tenantProvider(crm, cache, { credentials: vault('key-of-globex', true) });

    expect((await a.turn()).text).toContain('accounts for tenant acme');
    const globex = await b.turn();
    expect(globex.text).toContain('accounts for tenant globex');
    expect(globex.entry).toMatchObject({ status: 'injected', cache: 'miss' });
    expect(reads).toEqual(['key-of-acme', 'key-of-globex']);
    // Resolved once, then known at once: the next turn is an ordinary hit.
    expect((await b.turn()).entry).toMatchObject({ cache: 'hit' });
  });

  it('a notification from one tenant’s `crm` drops its copies only, not the other tenant’s', async () => {
    const cache = new ContentCache();
    const a = tenantProvider({ crm: crmServer('acme').config }, cache);
    const b = tenantProvider({ crm: crmServer('globex').config }, cache);
    await a.turn();
    await b.turn();
    cache.invalidateResource('crm', uri, String(a.servers.identityOf('crm')));
    const acmeAgain = await a.turn();
    const globexAgain = await b.turn();
    expect([acmeAgain.entry?.cache, globexAgain.entry?.cache]).toEqual(['miss', 'hit']);
    expect(globexAgain.text).toContain('accounts of globex');
    // Named without an identity, every server of that name is reached.
    cache.invalidateServer('crm');
    expect((await b.turn()).entry).toMatchObject({ cache: 'miss' });
  });
});
