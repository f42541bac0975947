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

async function listeningHost(
  resources: readonly ModernResource[],
  subscribe: boolean,
  honours?: (uri: string) => boolean,
) {
  const server = await startModernServer({
    eras: 'modern-only',
    resources,
    subscribe,
    ...(honours && { honours }),
  });
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
  const filters = () =>
    listens().map(
      (post) =>
        (post.params?.notifications as { resourceSubscriptions?: string[] } | undefined)
          ?.resourceSubscriptions,
    );
  return { server, attachments, provider, turn, listens, filters };
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

  it('a URI the acknowledgement leaves out is refused, asked no more, and refreshed by its TTL; the honoured one by its updates', async () => {
    const { server, attachments, provider, turn, filters } = await listeningHost(
      [
        { uri: 'note://a', name: 'a', text: 'alpha', cacheHint: fresh },
        { uri: 'note://b', name: 'b', text: 'beta', cacheHint: { ttlMs: 1_000, cacheScope: 'public' } },
        { uri: 'note://c', name: 'c', text: 'gamma', cacheHint: fresh },
      ],
      true,
      (uri) => uri !== 'note://b',
    );
    const failures: { uri: string; message: string }[] = [];
    provider.on('subscription-failed', ({ uri, error }) =>
      failures.push({ uri, message: error instanceof Error ? error.message : String(error) }),
    );
    await attachments.pin({ scope: { conversationId: 'c1' }, server: 'modern', uri: 'note://a' });
    await attachments.pin({ scope: { conversationId: 'c1' }, server: 'modern', uri: 'note://b' });
    const first = await turn('c1');
    const readB = performance.now();
    expect(first.text).toContain('alpha');
    expect(first.text).toContain('beta');
    expect(filters()).toEqual([['note://a', 'note://b']]);
    expect(failures).toEqual([
      { uri: 'note://b', message: expect.stringMatching(/acknowledgement left out note:\/\/b.*TTL/) },
    ]);
    expect(provider.subscriptions).toEqual([{ server: 'modern', uri: 'note://a' }]);

    // b's change is announced by no one (the server did not agree to watch it): within its TTL
    // the next turn still has the old text; a's update arrives on the stream.
    server.setText('note://a', 'alpha two', { notify: true });
    server.setText('note://b', 'beta two', { notify: true });
    await sleep(200);
    const second = await turn('c1');
    const entry = (uri: string) => second.trace.entries.find((one) => one.uri === uri);
    expect(entry('note://a')?.cache).toBe('miss');
    expect(second.text).toContain('alpha two');
    expect(entry('note://b')?.cache).toBe('hit');
    expect(second.text).toContain('beta');
    expect(second.text).not.toContain('beta two');

    // Its TTL up, b is read again.
    await sleep(Math.max(0, readB + 1_100 - performance.now()));
    const third = await turn('c1');
    expect(third.trace.entries.find((one) => one.uri === 'note://b')?.cache).toBe('miss');
    expect(third.text).toContain('beta two');
    expect(server.readCount('note://b')).toBe(2);

    // A URI pinned next listens with the honoured ones, not with b again.
    await attachments.pin({ scope: { conversationId: 'c1' }, server: 'modern', uri: 'note://c' });
    await turn('c1');
    expect(filters()).toEqual([
      ['note://a', 'note://b'],
      ['note://a', 'note://c'],
    ]);
    expect(failures).toHaveLength(1);
  });

  it("a listen the server never acknowledges fails after the session's request timeout, not the SDK's minute", async () => {
    const server = await startModernServer({
      eras: 'modern-only',
      resources: [{ uri: 'note://a', name: 'a', text: 'alpha', cacheHint: fresh }],
      subscribe: true,
      intercept: (post) =>
        post.method === 'subscriptions/listen' ? new Promise<Response>(() => undefined) : undefined,
    });
    onTestFinished(() => server.close());
    const servers = new McpServerRegistry({
      reconnect: false,
      requestTimeoutMs: 400,
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
    const failed = new Promise<{ uri: string; at: number }>((resolve) =>
      provider.on('subscription-failed', ({ uri }) => resolve({ uri, at: performance.now() })),
    );
    await attachments.pin({ scope: { conversationId: 'c1' }, server: 'modern', uri: 'note://a' });
    const started = performance.now();
    const { blocks } = await provider.provide({ pipelineId: 'chat', conversationId: 'c1' });

    expect(blocks.map((block) => block.text).join('')).toContain('alpha');
    const failure = await failed;
    expect(failure.uri).toBe('note://a');
    expect(failure.at - started).toBeGreaterThanOrEqual(350);
    expect(failure.at - started).toBeLessThan(10_000);
    expect(provider.subscriptions).toEqual([]);
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
