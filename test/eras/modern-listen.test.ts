import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type ModernResource, startModernServer } from '../../fixtures/modern/start-modern-server.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { sharedTokenizer } from '../support/provider-harness.js';

// Issue 34.3: pins on a 2026-07-28 server are kept fresh by one subscriptions/listen per session,
// its filter built from the pinned URIs (each once, however many conversations pin it).
const fresh = { ttlMs: 300_000, cacheScope: 'public' } as const;

async function listeningHost(resources: readonly ModernResource[], subscribe: boolean) {
  const server = await startModernServer({ eras: 'modern-only', resources, subscribe });
  onTestFinished(() => server.close());
  const servers = new McpServerRegistry({
    reconnect: false,
    mcpServers: { modern: { type: 'http', url: server.url } },
  });
  onTestFinished(() => servers.close());
  const attachments = new MemoryAttachmentStore();
  const provider = new ResourceContextProvider({
    servers,
    attachments,
    policy: new AccessPolicy({ bindings: { chat: { servers: ['modern'] } } }),
    tokenizer: sharedTokenizer,
    budget: { maxTokens: 4000 },
  });
  onTestFinished(() => provider.dispose());
  const turn = async (conversationId: string) => {
    const { blocks, trace } = await provider.provide({ pipelineId: 'chat', conversationId });
    await provider.subscriptionsSettled();
    return { text: blocks.map((block) => block.text).join(''), trace };
  };
  const listens = () => server.posts.filter((post) => post.method === 'subscriptions/listen');
  return { server, attachments, provider, turn, listens };
}

describe('subscriptions/listen driven by pins (2026-07-28)', () => {
  it('a pinned URI the server announces as updated is read again by the next turn, however fresh its ttlMs', async () => {
    const { server, attachments, turn, listens } = await listeningHost(
      [{ uri: 'note://a', name: 'a', text: 'first', cacheHint: fresh }],
      true,
    );
    await attachments.pin({ scope: { conversationId: 'c1' }, server: 'modern', uri: 'note://a' });

    const first = await turn('c1');
    expect(first.text).toContain('first');
    expect(first.trace.servers).toEqual([
      { server: 'modern', protocolVersion: '2026-07-28', pinUpdates: 'notifications' },
    ]);
    expect(listens()).toHaveLength(1);
    expect((await turn('c1')).trace.entries[0]?.cache).toBe('hit');

    server.setText('note://a', 'second', { notify: true });
    await sleep(200);
    const after = await turn('c1');
    expect(after.trace.entries[0]?.cache).toBe('miss');
    expect(after.text).toContain('second');
    expect(server.readCount('note://a')).toBe(2);
  });

  it('a URI pinned by many conversations is in one listen once; a new pinned URI listens anew with both', async () => {
    const { attachments, turn, listens } = await listeningHost(
      [
        { uri: 'note://a', name: 'a', text: 'alpha', cacheHint: fresh },
        { uri: 'note://b', name: 'b', text: 'beta', cacheHint: fresh },
      ],
      true,
    );
    for (let index = 0; index < 50; index++)
      await attachments.pin({ scope: { conversationId: `c${index}` }, server: 'modern', uri: 'note://a' });
    for (let index = 0; index < 50; index++) await turn(`c${index}`);
    expect(
      listens().map(
        (post) =>
          (post.params?.notifications as { resourceSubscriptions?: string[] } | undefined)
            ?.resourceSubscriptions,
      ),
    ).toEqual([['note://a']]);

    await attachments.pin({ scope: { conversationId: 'c0' }, server: 'modern', uri: 'note://b' });
    await turn('c0');
    expect(
      listens().map(
        (post) =>
          (post.params?.notifications as { resourceSubscriptions?: string[] } | undefined)
            ?.resourceSubscriptions,
      ),
    ).toEqual([['note://a'], ['note://a', 'note://b']]);
  });

  it('a stream the network drops is listened again after a backoff, and its updates arrive again', async () => {
    const { server, attachments, turn, listens } = await listeningHost(
      [{ uri: 'note://a', name: 'a', text: 'first', cacheHint: fresh }],
      true,
    );
    await attachments.pin({ scope: { conversationId: 'c1' }, server: 'modern', uri: 'note://a' });
    await turn('c1');
    expect(listens()).toHaveLength(1);

    const dropped = performance.now();
    server.dropConnections();
    while (listens().length < 2 && performance.now() - dropped < 5_000) await sleep(10);
    // Listened again, and not at once: the first wait is drawn between 125 and 250 ms.
    expect(listens()).toHaveLength(2);
    expect(performance.now() - dropped).toBeGreaterThanOrEqual(120);
    // Nothing changed meanwhile: still a hit; the update below arrives on the new stream.
    expect((await turn('c1')).trace.entries[0]?.cache).toBe('hit');

    server.setText('note://a', 'second', { notify: true });
    await sleep(200);
    const after = await turn('c1');
    expect(after.text).toContain('second');
  });

  it('a server that does not offer resources.subscribe gets no listen for pins, and its pins are TTL-only', async () => {
    const { attachments, turn, listens } = await listeningHost(
      [{ uri: 'note://a', name: 'a', text: 'alpha', cacheHint: fresh }],
      false,
    );
    await attachments.pin({ scope: { conversationId: 'c1' }, server: 'modern', uri: 'note://a' });
    const first = await turn('c1');
    expect(first.trace.servers).toEqual([
      { server: 'modern', protocolVersion: '2026-07-28', pinUpdates: 'ttl' },
    ]);
    expect(listens()).toHaveLength(0);
  });
});
