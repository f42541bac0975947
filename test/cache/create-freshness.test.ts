import { describe, expect, it, onTestFinished } from 'vitest';
import { ContentCache } from '../../src/cache/content-cache.js';
import { createFreshness } from '../../src/cache/create-freshness.js';
import type { Invalidation, SharedTier } from '../../src/cache/shared-tier.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { startControlledServer } from '../support/controlled-server.js';

const uri = 'doc://a';
const actor = { pipelineId: 'support' };

/** A real registry over a controlled server named `controlled`, and every event emitted. */
function start(option?: Parameters<typeof createFreshness>[1]) {
  const server = startControlledServer({ [uri]: [{ uri, mimeType: 'text/plain', text: 'hello' }] });
  const servers = new McpServerRegistry({ mcpServers: { controlled: server.serverConfig } });
  const events: [string, unknown][] = [];
  const freshness = createFreshness(servers, option, (name, ...payload) => events.push([name, payload[0]]));
  onTestFinished(async () => {
    freshness.dispose();
    await servers.close();
    await server.close();
  });
  return { server, servers, freshness, events };
}

/** A shared tier that holds its invalidation listeners, for the test to count and call. */
function listeningTier() {
  const listeners = new Set<(invalidation: Invalidation) => void>();
  const tier: SharedTier = {
    lookup: async () => ({ kind: 'alone', reason: 'unavailable' }),
    publish: () => {},
    onInvalidation: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  return { tier, listeners };
}

const registryEvents = [
  'resource-updated',
  'resources-list-changed',
  'session-closed',
  'session-opened',
] as const;

describe('createFreshness', () => {
  it('a read and a server notification reach emit as resource-read and cache-invalidated', async () => {
    const { server, servers, freshness, events } = start();
    await freshness.cache.read({ server: 'controlled', uri }, () => servers.readResource('controlled', uri));
    expect(events).toEqual([
      ['resource-read', { server: 'controlled', uri, bytes: 5, durationMs: expect.any(Number) }],
    ]);
    const invalidated = new Promise((resolve) => freshness.cache.once('cache-invalidated', resolve));
    await server.notifyUpdated(uri);
    await invalidated;
    expect(events[1]).toEqual([
      'cache-invalidated',
      { server: 'controlled', uri, reason: 'resource updated', entries: 1 },
    ]);
  });

  it('a failed subscribe and a failed listing reach emit as subscription-failed and listing-failed', async () => {
    const { server, freshness, events } = start();
    server.breakSubscribes();
    server.breakLists();
    freshness.subscriptions.reconcile('pipeline:support', [{ server: 'controlled', uri }]);
    await freshness.subscriptions.settled();
    freshness.listings.known('controlled', uri, actor);
    await freshness.listings.settled();
    expect(events.map(([name]) => name)).toEqual(['subscription-failed', 'listing-failed']);
    const [subscription, listing] = events.map(([, payload]) => payload) as [
      { server: string; uri: string; error: unknown },
      { server: string; error: Error },
    ];
    expect(subscription).toMatchObject({ server: 'controlled', uri });
    expect(String(subscription.error)).toContain('subscriptions are broken');
    expect(listing.server).toBe('controlled');
    expect(listing.error.message).toContain('the listing is broken');
  });

  it("listings are fresh for the cache's ttlMs", async () => {
    const fresh = start();
    fresh.freshness.listings.known('controlled', uri, actor);
    await fresh.freshness.listings.settled();
    fresh.freshness.listings.known('controlled', uri, actor);
    await fresh.freshness.listings.settled();
    expect(fresh.server.listCount()).toBe(1);

    const stale = start({ ttlMs: 0 });
    stale.freshness.listings.known('controlled', uri, actor);
    await stale.freshness.listings.settled();
    stale.freshness.listings.known('controlled', uri, actor);
    await stale.freshness.listings.settled();
    expect(stale.server.listCount()).toBe(2);
  });

  it('a cache made from options is its own: dispose stops it listening to the shared tier', () => {
    const { tier, listeners } = listeningTier();
    const { freshness } = start({ shared: tier });
    expect(freshness.cache).toBeInstanceOf(ContentCache);
    expect(listeners.size).toBe(1);
    freshness.dispose();
    expect(listeners.size).toBe(0);
  });

  it('a given cache is used as is and stays usable after dispose; nothing of the registry or the cache is still wired', async () => {
    const { tier, listeners } = listeningTier();
    const cache = new ContentCache({ shared: tier });
    const { servers, freshness, events } = start(cache);
    expect(freshness.cache).toBe(cache);
    freshness.dispose();
    expect(listeners.size).toBe(1);
    for (const name of registryEvents) expect(servers.listenerCount(name)).toBe(0);
    expect(cache.listenerCount('cache-invalidated')).toBe(0);
    expect(cache.listenerCount('resource-read')).toBe(0);
    await cache.read({ server: 'controlled', uri }, async () => ({ contents: [] }));
    cache.invalidateResource('controlled', uri);
    expect(events).toEqual([]);
  });
});
