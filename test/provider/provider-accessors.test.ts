import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import type { AccessPolicyOptions } from '../../src/policy/access-policy.js';
import type { ResourceContextProviderOptions } from '../../src/provider/resource-context-provider-options.js';
import { startControlledServer } from '../support/controlled-server.js';
import { sharedTokenizer, startProviderHarness } from '../support/provider-harness.js';

const docA = 'doc://a';
const docB = 'doc://b';
const docM = 'doc://m';

/** A provider over a controlled server that offers `resources.subscribe`, nothing pinned yet. */
async function start(provider: Partial<ResourceContextProviderOptions> = {}, policy?: AccessPolicyOptions) {
  const server = startControlledServer({
    [docA]: [{ uri: docA, mimeType: 'text/plain', text: 'document a' }],
    [docB]: [{ uri: docB, mimeType: 'text/plain', text: 'document b' }],
    [docM]: [{ uri: docM, mimeType: 'text/plain', text: 'document m' }],
  });
  onTestFinished(async () => {
    await server.close();
  });
  const harness = await startProviderHarness('memory', {
    extraServers: { controlled: server.serverConfig },
    provider,
    ...(policy && { policy }),
  });
  return { ...harness, server };
}

describe('what a provider shows its host', () => {
  it('subscriptions: the pins of every scope a turn holds, not its one-off message attachments', async () => {
    const { provider, attachments, server } = await start();
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri: docA });
    await attachments.pin({ scope: { conversationId: 'c-1' }, server: 'controlled', uri: docB });
    expect(provider.subscriptions).toEqual([]);
    await provider.provide({
      pipelineId: 'support',
      conversationId: 'c-1',
      message: { attachments: [{ server: 'controlled', uri: docM }] },
    });
    await provider.subscriptionsSettled();
    expect(provider.subscriptions).toEqual([
      { server: 'controlled', uri: docA },
      { server: 'controlled', uri: docB },
    ]);
    expect(server.subscriptionRequests()).toEqual([`subscribe ${docA}`, `subscribe ${docB}`]);
  });

  it("each pipeline and each conversation holds its own pins: another one's turn lets go of none of them", async () => {
    const { provider, attachments, server } = await start(
      {},
      { bindings: { support: { servers: ['gitnexus', 'controlled'] }, sales: { servers: ['controlled'] } } },
    );
    const failures: unknown[] = [];
    provider.on('subscription-failed', (failure) => failures.push(failure));
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri: docA });
    await attachments.pin({ scope: { pipelineId: 'sales' }, server: 'controlled', uri: docB });
    await attachments.pin({ scope: { conversationId: 'c-1' }, server: 'controlled', uri: docM });
    await provider.provide({ pipelineId: 'support', conversationId: 'c-1' });
    await provider.provide({ pipelineId: 'sales', conversationId: 'c-2' });
    await provider.subscriptionsSettled();
    expect(server.subscriptionRequests()).toEqual([
      `subscribe ${docA}`,
      `subscribe ${docM}`,
      `subscribe ${docB}`,
    ]);
    expect(provider.subscriptions).toEqual([
      { server: 'controlled', uri: docA },
      { server: 'controlled', uri: docM },
      { server: 'controlled', uri: docB },
    ]);
    expect(failures).toEqual([]);
  });

  it('a pin the policy denies is never subscribed', async () => {
    const { provider, attachments, server } = await start(
      {},
      {
        bindings: { support: { servers: ['gitnexus', { name: 'controlled', resources: [docA] }] } },
      },
    );
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri: docA });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri: docB });
    const { trace } = await provider.provide({ pipelineId: 'support' });
    await provider.subscriptionsSettled();
    expect(trace.entries.map((entry) => [entry.uri, entry.status])).toEqual([
      [docA, 'injected'],
      [docB, 'denied'],
    ]);
    expect(provider.subscriptions).toEqual([{ server: 'controlled', uri: docA }]);
    expect(server.subscriptionRequests()).toEqual([`subscribe ${docA}`]);
  });

  it('a pipeline pin that a conversation pin supersedes stays held by the pipeline: no unsubscribe in between', async () => {
    const { provider, attachments, server } = await start();
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri: docA });
    await provider.provide({ pipelineId: 'support' });
    await provider.subscriptionsSettled();
    await attachments.pin({ scope: { conversationId: 'c-1' }, server: 'controlled', uri: docA });
    const { trace } = await provider.provide({ pipelineId: 'support', conversationId: 'c-1' });
    await provider.subscriptionsSettled();
    expect(trace.entries.map((entry) => [entry.scope, entry.superseded?.map((pin) => pin.scope)])).toEqual([
      ['conversation', ['pipeline']],
    ]);
    // Had the pipeline let go of it, its subscription would be dropped and sent again.
    expect(server.subscriptionRequests()).toEqual([`subscribe ${docA}`]);
    expect(provider.subscriptions).toEqual([{ server: 'controlled', uri: docA }]);
  });

  it('subscriptionsSettled() waits for a subscribe the server has not answered yet', async () => {
    const { provider, attachments, server } = await start();
    const held = server.holdNextSubscribe(docA);
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri: docA });
    const { trace } = await provider.provide({ pipelineId: 'support' });
    expect(trace.entries.map((entry) => [entry.uri, entry.status])).toEqual([[docA, 'injected']]);
    await held.started;
    const order: string[] = [];
    let subscribedWhenSettled: unknown;
    const settled = provider.subscriptionsSettled().then(() => {
      order.push('settled');
      subscribedWhenSettled = provider.subscriptions;
    });
    // The next turn of the event loop: a wait that did not wait for the server has resolved by now.
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(provider.subscriptions).toEqual([]);
    order.push('released');
    held.release();
    await settled;
    expect(order).toEqual(['released', 'settled']);
    expect(subscribedWhenSettled).toEqual([{ server: 'controlled', uri: docA }]);
    expect(server.subscriptionRequests()).toEqual([`subscribe ${docA}`]);
  });

  it('metrics: the cache outcomes of the turns so far and the derived bytes held', async () => {
    const { provider, attachments } = await start();
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri: docA });
    const first = await provider.provide({ pipelineId: 'support' });
    const second = await provider.provide({ pipelineId: 'support' });
    expect([first, second].map(({ trace }) => trace.entries[0]?.cache)).toEqual(['miss', 'hit']);
    expect(provider.metrics).toEqual({
      hits: 1,
      misses: 1,
      bypasses: 0,
      staleServes: 0,
      evictions: 0,
      invalidations: 0,
      entries: 1,
      bytesHeld: expect.any(Number),
      readsInFlight: 0,
      tooLargeToCache: 0,
      probationBytesHeld: 0,
      promotions: 0,
      derivedBytesHeld: expect.any(Number),
      // The warm turn is held, to be answered again once a second warm turn answers alike.
      keptTurns: 1,
      keptTurnBytes: expect.any(Number),
    });
    // The content of `doc://a`, and its conversion and token arrays.
    expect(provider.metrics?.bytesHeld).toBeGreaterThanOrEqual('document a'.length);
    expect(provider.metrics?.derivedBytesHeld).toBeGreaterThan(0);
  });

  it('without a cache: no metrics, no subscriptions, and both waits resolve at once', async () => {
    const { provider, attachments, server } = await start({ cache: false });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri: docA });
    const { trace } = await provider.provide({ pipelineId: 'support' });
    expect(trace.entries.map((entry) => [entry.status, entry.cache])).toEqual([['injected', 'bypass']]);
    expect(provider.metrics).toBeUndefined();
    expect(provider.subscriptions).toEqual([]);
    await expect(provider.subscriptionsSettled()).resolves.toBeUndefined();
    await expect(provider.listingsSettled()).resolves.toBeUndefined();
    expect(server.subscriptionRequests()).toEqual([]);
    expect(server.listCount()).toBe(0);
    expect(() => provider.dispose()).not.toThrow();
  });

  it('the pin store and the tokenizer it was given', async () => {
    const { provider, attachments } = await start();
    expect(provider.attachments).toBe(attachments);
    expect(provider.tokenizer).toBe(sharedTokenizer);
  });

  it('dispose frees the tokenizer it made, never one it was given, and drops its listeners', async () => {
    const { provider } = await start({ tokenizer: undefined });
    const own = provider.tokenizer;
    expect(own).not.toBe(sharedTokenizer);
    const freed = vi.spyOn(own, 'dispose');
    const given = createTiktokenTokenizer();
    onTestFinished(() => given.dispose());
    const keeps = vi.spyOn(given, 'dispose');
    const { provider: borrowing } = await start({ tokenizer: given });
    provider.on('injected', () => {});
    expect(provider.listenerCount('injected')).toBe(1);

    provider.dispose();
    borrowing.dispose();
    expect(freed).toHaveBeenCalledTimes(1);
    expect(keeps).not.toHaveBeenCalled();
    expect(provider.listenerCount('injected')).toBe(0);
  });
});
