import { describe, expect, it, onTestFinished } from 'vitest';
import { startGitNexusFixture } from '../../fixtures/index.js';
import type { InjectionTrace } from '../../src/types.js';
import { startProviderHarness, type TransportKind } from '../support/provider-harness.js';

const entry = (trace: InjectionTrace, uri: string) => trace.entries.find((item) => item.uri === uri);

describe('provider caching', () => {
  it('100 concurrent turns of different conversations sharing 20 pinned resources cause exactly 20 reads', async () => {
    const { attachments, provider, fixture } = await startProviderHarness('memory', {
      fixture: { extraResources: 20 },
    });
    for (let index = 1; index <= 20; index++) {
      const uri = `gitnexus://note/${String(index).padStart(3, '0')}`;
      await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri });
    }
    const traces = await Promise.all(
      Array.from({ length: 100 }, (_, index) =>
        provider
          .provide({ pipelineId: 'support', conversationId: `c-${index}` })
          .then((result) => result.trace),
      ),
    );
    expect(fixture.readCount()).toBe(20);
    for (const trace of traces) {
      expect(trace.entries).toHaveLength(20);
      expect(trace.entries.every((item) => item.status === 'injected')).toBe(true);
    }
    const next = await provider.provide({ pipelineId: 'support', conversationId: 'c-late' });
    expect(next.trace.entries.every((item) => item.cache === 'hit')).toBe(true);
    expect(fixture.readCount()).toBe(20);
    expect(provider.metrics).toMatchObject({ misses: 2000, hits: 20, readsInFlight: 0, entries: 20 });
    expect(provider.metrics?.derivedBytesHeld).toBeGreaterThan(0);
  });

  it('a per-turn and a per-attachment bypass read from the server and say so', async () => {
    const { attachments, provider, fixture } = await startProviderHarness('memory');
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      uri: 'gitnexus://setup',
      bypassCache: true,
    });
    await provider.provide({ pipelineId: 'support' });
    const second = await provider.provide({ pipelineId: 'support' });
    expect(entry(second.trace, 'gitnexus://repos')?.cache).toBe('hit');
    expect(entry(second.trace, 'gitnexus://setup')?.cache).toBe('bypass');
    const third = await provider.provide({ pipelineId: 'support', bypassCache: true });
    expect(third.trace.entries.map((item) => item.cache)).toEqual(['bypass', 'bypass']);
    expect(fixture.readCount('gitnexus://repos')).toBe(2);
    expect(fixture.readCount('gitnexus://setup')).toBe(3);
  });

  it('stale-on-error: with the server stopped, the cached copy is injected as stale with the error', async () => {
    // Nothing is fresh (ttlMs 0), so the second turn must try the stopped server.
    const { attachments, provider, fixture } = await startProviderHarness('http', {
      provider: { cache: { ttlMs: 0 } },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    const first = await provider.provide({ pipelineId: 'support' });
    await fixture.close();
    const second = await provider.provide({ pipelineId: 'support' });
    expect(second.trace.entries[0]).toMatchObject({
      status: 'stale',
      cache: 'stale',
      sha256: first.trace.entries[0]?.sha256,
      error: { code: expect.stringMatching(/CONNECT_FAILED|SESSION_CLOSED|PROTOCOL_ERROR/) },
    });
    expect(second.blocks.some((block) => block.text.includes('acme-shop'))).toBe(true);
  });

  it('without a cache every turn reads from the server', async () => {
    const { attachments, provider, fixture } = await startProviderHarness('memory', {
      provider: { cache: false },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await provider.provide({ pipelineId: 'support' });
    const second = await provider.provide({ pipelineId: 'support' });
    expect(second.trace.entries[0]?.cache).toBe('bypass');
    expect(fixture.readCount()).toBe(2);
    expect(provider.metrics).toBeUndefined();
  });
});

describe.each<TransportKind>(['memory', 'http'])('freshness over %s', (transport) => {
  it('updated: the next turn re-reads exactly the resource that changed', async () => {
    const { attachments, provider, fixture } = await startProviderHarness(transport, {
      fixture: { subscribe: true },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      uri: 'gitnexus://repo/acme-shop/schema',
    });
    const first = await provider.provide({ pipelineId: 'support', conversationId: 'c-1' });
    await provider.subscriptionsSettled();
    expect(provider.subscriptions.map((item) => item.uri).sort()).toEqual([
      'gitnexus://repo/acme-shop/schema',
      'gitnexus://repos',
    ]);
    const invalidated = new Promise((resolve) => provider.once('cache-invalidated', resolve));
    await fixture.reindex();
    expect(await invalidated).toEqual({
      server: 'gitnexus',
      uri: 'gitnexus://repos',
      reason: 'resource updated',
      entries: 1,
    });

    const second = await provider.provide({ pipelineId: 'support', conversationId: 'c-1' });
    expect(fixture.readCount('gitnexus://repos')).toBe(2);
    expect(fixture.readCount('gitnexus://repo/acme-shop/schema')).toBe(1);
    expect(entry(second.trace, 'gitnexus://repos')).toMatchObject({ cache: 'miss', change: 'changed' });
    expect(entry(second.trace, 'gitnexus://repo/acme-shop/schema')).toMatchObject({
      cache: 'hit',
      change: 'unchanged',
    });
    expect(entry(first.trace, 'gitnexus://repos')?.change).toBe('new');
    expect(entry(second.trace, 'gitnexus://repos')?.sha256).not.toBe(
      entry(first.trace, 'gitnexus://repos')?.sha256,
    );
  });

  it('list_changed: the next turn re-reads that server, and no other', async () => {
    const other = await startGitNexusFixture({ transport });
    onTestFinished(() => other.close());
    const { attachments, provider, fixture } = await startProviderHarness(transport, {
      fixture: { listChanged: true },
      extraServers: { other: other.serverConfig },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://setup' });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'other', uri: 'gitnexus://repos' });
    await provider.provide({ pipelineId: 'support' });
    const invalidated = new Promise((resolve) => provider.once('cache-invalidated', resolve));
    await fixture.reindex();
    expect(await invalidated).toEqual({ server: 'gitnexus', reason: 'resource list changed', entries: 2 });

    const second = await provider.provide({ pipelineId: 'support' });
    expect(second.trace.entries.map((item) => [item.server, item.uri, item.cache])).toEqual([
      ['gitnexus', 'gitnexus://repos', 'miss'],
      ['gitnexus', 'gitnexus://setup', 'miss'],
      ['other', 'gitnexus://repos', 'hit'],
    ]);
    expect(fixture.readCount()).toBe(4);
    expect(other.readCount()).toBe(1);
  });

  it('subscriptions are shared across scopes and dropped with the last pin', async () => {
    const { attachments, provider } = await startProviderHarness(transport, { fixture: { subscribe: true } });
    const pipelinePin = await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      uri: 'gitnexus://repos',
    });
    const conversationPin = await attachments.pin({
      scope: { conversationId: 'c-9' },
      server: 'gitnexus',
      uri: 'gitnexus://repos',
    });
    await provider.provide({ pipelineId: 'support', conversationId: 'c-9' });
    await provider.subscriptionsSettled();
    expect(provider.subscriptions).toEqual([{ server: 'gitnexus', uri: 'gitnexus://repos' }]);

    await attachments.unpin(pipelinePin.id);
    await provider.provide({ pipelineId: 'support', conversationId: 'c-9' });
    await provider.subscriptionsSettled();
    expect(provider.subscriptions).toHaveLength(1);

    await attachments.unpin(conversationPin.id);
    await provider.provide({ pipelineId: 'support', conversationId: 'c-9' });
    await provider.subscriptionsSettled();
    expect(provider.subscriptions).toEqual([]);
  });

  it('a pin swapped for another between turns (as many pins as before) moves the subscription', async () => {
    const { attachments, provider } = await startProviderHarness(transport, { fixture: { subscribe: true } });
    const first = await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      uri: 'gitnexus://repos',
    });
    await provider.provide({ pipelineId: 'support' });
    await provider.provide({ pipelineId: 'support' });
    await provider.subscriptionsSettled();
    expect(provider.subscriptions).toEqual([{ server: 'gitnexus', uri: 'gitnexus://repos' }]);

    await attachments.unpin(first.id);
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://setup' });
    await provider.provide({ pipelineId: 'support' });
    await provider.subscriptionsSettled();
    expect(provider.subscriptions).toEqual([{ server: 'gitnexus', uri: 'gitnexus://setup' }]);
  });
});

describe('subscriptions across a reconnect', () => {
  it('pinned URIs are subscribed again on the new session after the server restarts', async () => {
    const {
      attachments,
      provider,
      fixture: first,
    } = await startProviderHarness('http', {
      fixture: { subscribe: true },
      registry: { reconnect: { initialDelayMs: 50, maxDelayMs: 200 } },
    });
    const port = Number(new URL(first.url ?? '').port);
    let restarted: Awaited<ReturnType<typeof startGitNexusFixture>> | undefined;
    onTestFinished(() => restarted?.close());
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await provider.provide({ pipelineId: 'support' });
    await provider.subscriptionsSettled();
    expect(provider.subscriptions).toEqual([{ server: 'gitnexus', uri: 'gitnexus://repos' }]);

    // The client notices the old session is gone when its stream fails, at the latest once the
    // server is back; the registry then opens a new session, and the pins are subscribed on it.
    await first.close();
    restarted = await startGitNexusFixture({ transport: 'http', port, subscribe: true });
    await expect.poll(() => restarted?.sessionCount(), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
    await provider.subscriptionsSettled();

    const invalidations: string[] = [];
    provider.on('cache-invalidated', (event) => {
      if (event.uri) invalidations.push(event.uri);
    });
    await expect
      .poll(
        async () => {
          await provider.subscriptionsSettled();
          await restarted?.reindex();
          return invalidations;
        },
        { timeout: 10_000, interval: 200 },
      )
      .toContain('gitnexus://repos');
  });
});
