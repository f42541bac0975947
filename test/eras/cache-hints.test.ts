import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type ModernResource, startModernServer } from '../../fixtures/modern/start-modern-server.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import type { ResourceContextProviderOptions } from '../../src/provider/resource-context-provider-options.js';
import { sharedTokenizer } from '../support/provider-harness.js';

// Issue 34.2 and 34.5's interop cases: a modern-only server (the v2 server package) whose reads
// carry ttlMs / cacheScope, through the provider, its pins on a server configured as shared.
async function modernHost(
  resources: readonly ModernResource[],
  cache?: ResourceContextProviderOptions['cache'],
) {
  const server = await startModernServer({ eras: 'modern-only', resources });
  onTestFinished(() => server.close());
  const servers = new McpServerRegistry({
    reconnect: false,
    mcpServers: { modern: { type: 'http', url: server.url } },
  });
  onTestFinished(() => servers.close());
  const attachments = new MemoryAttachmentStore();
  for (const { uri } of resources)
    await attachments.pin({ scope: { pipelineId: 'chat' }, server: 'modern', uri });
  const provider = new ResourceContextProvider({
    servers,
    attachments,
    policy: new AccessPolicy({ bindings: { chat: { servers: ['modern'] } } }),
    tokenizer: sharedTokenizer,
    budget: { maxTokens: 4000 },
    ...(cache !== undefined && { cache }),
  });
  onTestFinished(() => provider.dispose());
  const turn = async (principal?: string) => {
    const { blocks, trace } = await provider.provide({
      pipelineId: 'chat',
      ...(principal !== undefined && { principal }),
    });
    return {
      text: blocks.map((block) => block.text).join(''),
      caches: trace.entries.map((entry) => entry.cache),
    };
  };
  return { server, turn };
}

describe('a 2026-07-28 server’s cache hints, honoured through the provider', () => {
  it('a body marked ttlMs 500 is read again once 500 ms have passed, kept turns included; the server’s change is then seen', async () => {
    const { server, turn } = await modernHost([
      { uri: 'note://short', name: 'short', text: 'first', cacheHint: { ttlMs: 500, cacheScope: 'public' } },
    ]);

    const turns = [await turn(), await turn(), await turn()];
    server.setText('note://short', 'second');
    const fresh = await turn();
    await sleep(550);
    const after = await turn();

    expect(turns.map((each) => each.caches[0])).toEqual(['miss', 'hit', 'hit']);
    expect(fresh.text).toContain('first');
    expect(after.caches).toEqual(['miss']);
    expect(after.text).toContain('second');
    expect(server.readCount('note://short')).toBe(2);
  });

  it('the v2 server’s default hints (ttlMs 0, private) are read every turn; a server’s own day-long hint is capped by maxTtlMs', async () => {
    const { server, turn } = await modernHost(
      [
        { uri: 'note://default', name: 'default', text: 'plain' },
        {
          uri: 'note://day',
          name: 'day',
          text: 'static',
          cacheHint: { ttlMs: 86_400_000, cacheScope: 'public' },
        },
      ],
      { maxTtlMs: 300 },
    );

    const first = await turn();
    const second = await turn();
    await sleep(350);
    const third = await turn();

    expect([first.caches, second.caches, third.caches]).toEqual([
      ['miss', 'miss'],
      ['miss', 'hit'],
      ['miss', 'miss'],
    ]);
    expect(server.readCount('note://default')).toBe(3);
    expect(server.readCount('note://day')).toBe(2);
  });

  it('a private body on a server whose credentials all users share never crosses principals, concurrent turns included', async () => {
    const { server, turn } = await modernHost([
      {
        uri: 'note://mine',
        name: 'mine',
        text: 'private notes',
        cacheHint: { ttlMs: 60_000, cacheScope: 'private' },
      },
      {
        uri: 'note://ours',
        name: 'ours',
        text: 'public notes',
        cacheHint: { ttlMs: 60_000, cacheScope: 'public' },
      },
    ]);

    const ada = await turn('ada');
    const [bob, carol] = await Promise.all([turn('bob'), turn('carol')]);
    const adaAgain = await turn('ada');

    expect(ada.caches).toEqual(['miss', 'miss']);
    expect(bob.caches[0]).toBe('miss');
    expect(carol.caches[0]).toBe('miss');
    expect(adaAgain.caches).toEqual(['hit', 'hit']);
    expect(server.readCount('note://mine')).toBe(3);
    expect(server.readCount('note://ours')).toBe(1);
  });
});
