import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type CacheEvents, ContentCache } from '../../src/cache/content-cache.js';

type CacheInvalidated = CacheEvents['cache-invalidated'][0];

import type { RedisSharedTier } from '../../src/redis.js';
import { FaultRedis } from '../support/fault-redis.js';
import { freshPrefix, openTier, testRedisUrl } from './support/redis-test.js';
import { startSilentServer } from './support/silent-server.js';

const holdLeaseScript = join(dirname(fileURLToPath(import.meta.url)), 'support/hold-lease-process.ts');

const body = (text: string): ReadResourceResult => ({
  contents: [{ uri: 'x://a', mimeType: 'text/plain', text }],
});
const textOf = (result: ReadResourceResult) => (result.contents[0] as { text: string }).text;

/** One resource at one "server": counts its reads, serves its current text. */
function resource(initial: string) {
  const state = { text: initial, reads: 0 };
  return {
    state,
    read: async () => {
      state.reads++;
      return body(state.text);
    },
  };
}

/** A read the test finishes by hand, to place invalidations inside it. */
function deferredRead() {
  let resolve: (result: ReadResourceResult) => void = () => {};
  const promise = new Promise<ReadResourceResult>((ok) => {
    resolve = ok;
  });
  return { read: () => promise, resolve };
}

/** One replica: its own tier (Redis connections) and local cache, on the given key prefix. */
async function replica(keyPrefix: string, options: Parameters<typeof openTier>[0] = {}) {
  const shared = await openTier({ keyPrefix, ...options });
  const cache = new ContentCache({ shared });
  onTestFinished(() => cache.dispose());
  return { shared, cache };
}

/** Resolves with the first payload of the next `name` event (eventemitter3 has no `once` helper). */
function nextEvent<Payload = unknown>(emitter: object, name: string): Promise<Payload> {
  const { once: listenOnce } = emitter as {
    once: (name: string, listener: (payload: Payload) => void) => void;
  };
  return new Promise((resolve) => listenOnce.call(emitter, name, resolve));
}

const key = { server: 's', uri: 'x://a' };

describe('RedisSharedTier behind ContentCache', () => {
  it('a resource read by one replica is a hit on the others: one read at the server', async () => {
    const prefix = freshPrefix();
    const a = await replica(prefix);
    const b = await replica(prefix);
    const c = await replica(prefix);
    const server = resource('v1');
    const first = await a.cache.read(key, server.read);
    const second = await b.cache.read(key, server.read);
    const third = await c.cache.read(key, server.read);
    expect([first.shared, second.shared, third.shared]).toEqual(['miss', 'hit', 'hit']);
    expect(textOf(third.content.result)).toBe('v1');
    expect(third.content.sha256).toBe(first.content.sha256);
    expect(server.state.reads).toBe(1);
    // Served from the fleet, then from its own memory.
    expect((await b.cache.read(key, server.read)).cache).toBe('hit');
  });

  it('four replicas asking at once cause one read at the server (fleet-wide single flight)', async () => {
    const prefix = freshPrefix();
    const fleet = await Promise.all([1, 2, 3, 4].map(() => replica(prefix)));
    const pending = deferredRead();
    let reads = 0;
    const read = () => {
      reads++;
      return pending.read();
    };
    const asked = fleet.map(({ cache }) => cache.read(key, read));
    // The first to take the lease reads; the others wait for its fill.
    await new Promise<void>((resolve) => {
      const check = () => (reads > 0 ? resolve() : setImmediate(check));
      check();
    });
    pending.resolve(body('once'));
    const results = await Promise.all(asked);
    expect(reads).toBe(1);
    expect(results.map((result) => textOf(result.content.result))).toEqual(Array(4).fill('once'));
    expect(results.map((result) => result.shared).sort()).toEqual(['hit', 'hit', 'hit', 'miss']);
  });

  it('an updated heard by one replica drops the entry on all, and the shared copy with it', async () => {
    const prefix = freshPrefix();
    const a = await replica(prefix);
    const b = await replica(prefix);
    const server = resource('v1');
    await a.cache.read(key, server.read);
    await b.cache.read(key, server.read);
    server.state.text = 'v2';

    const dropped = nextEvent<CacheInvalidated>(b.cache, 'cache-invalidated');
    a.cache.invalidateResource('s', 'x://a');
    const event = await dropped;
    expect(event).toMatchObject({ server: 's', uri: 'x://a', entries: 1 });
    expect(event.reason).toContain('another replica');

    const after = await b.cache.read(key, server.read);
    expect(textOf(after.content.result)).toBe('v2');
    expect(after.shared).toBe('miss');
    expect(server.state.reads).toBe(2);
  });

  it('a list_changed heard by one replica drops every entry of that server on the others', async () => {
    const prefix = freshPrefix();
    const a = await replica(prefix);
    const b = await replica(prefix);
    const server = resource('v1');
    await b.cache.read({ server: 's', uri: 'x://1' }, server.read);
    await b.cache.read({ server: 's', uri: 'x://2' }, server.read);
    await b.cache.read({ server: 'other', uri: 'x://1' }, server.read);
    const dropped = nextEvent<CacheInvalidated>(b.cache, 'cache-invalidated');
    a.cache.invalidateServer('s');
    expect(await dropped).toMatchObject({ server: 's', entries: 2 });
    expect(b.cache.metrics.entries).toBe(1);
  });

  it('copies are partitioned by principal: one user’s read is never another’s hit', async () => {
    const prefix = freshPrefix();
    const a = await replica(prefix);
    const b = await replica(prefix);
    await a.cache.read({ ...key, principal: 'alice' }, async () => body('alice’s'));
    const bob = await b.cache.read({ ...key, principal: 'bob' }, async () => body('bob’s'));
    expect(textOf(bob.content.result)).toBe('bob’s');
    expect(bob.shared).toBe('miss');
    const alice = await b.cache.read({ ...key, principal: 'alice' }, async () => body('unexpected'));
    expect(textOf(alice.content.result)).toBe('alice’s');
    expect(alice.shared).toBe('hit');
  });

  it('a read invalidated while in flight is not stored for the fleet', async () => {
    const prefix = freshPrefix();
    const a = await replica(prefix);
    const b = await replica(prefix);
    const old = deferredRead();
    const reading = a.cache.read(key, old.read);
    // B hears the update while A's read (of the old content) is still running.
    await new Promise((resolve) => setTimeout(resolve, 0));
    const heard = nextEvent<CacheInvalidated>(a.cache, 'cache-invalidated');
    b.cache.invalidateResource('s', 'x://a');
    await heard;
    old.resolve(body('old'));
    expect(textOf((await reading).content.result)).toBe('old');
    const fresh = await b.cache.read(key, async () => body('new'));
    expect(textOf(fresh.content.result)).toBe('new');
    expect(fresh.shared).toBe('miss');
  });

  it('a read larger than maxEntryBytes stays local: the next replica reads its own', async () => {
    const prefix = freshPrefix();
    const a = await replica(prefix, { maxEntryBytes: 200 });
    const b = await replica(prefix, { maxEntryBytes: 200 });
    const server = resource('x'.repeat(500));
    await a.cache.read(key, server.read);
    expect((await b.cache.read(key, server.read)).shared).toBe('miss');
    expect(server.state.reads).toBe(2);
    expect(a.shared.metrics.tooLargeToShare).toBe(1);
  });

  it('a waiter whose holder does not finish in time reads on its own (wait-timeout), never hangs', async () => {
    const keyPrefix = freshPrefix();
    const holder = await replica(keyPrefix, { leaseMs: 60_000 });
    const waiter = await replica(keyPrefix, { leaseMs: 60_000, waitTimeoutMs: 100 });
    const stuck = deferredRead();
    void holder.cache.read(key, stuck.read);
    await new Promise<void>((resolve) => {
      const check = () => (holder.shared.metrics.leads > 0 ? resolve() : setTimeout(check, 5));
      check();
    });
    const own = await waiter.cache.read(key, async () => body('own'));
    expect(own.shared).toBe('wait-timeout');
    expect(textOf(own.content.result)).toBe('own');
    stuck.resolve(body('late'));
  });

  it('Redis unreachable: reads go on alone, reported as unavailable; invalidations still apply locally', async () => {
    const shared = await openTierUnreachable();
    const cache = new ContentCache({ shared });
    const server = resource('v1');
    const first = await cache.read(key, server.read);
    expect(first.shared).toBe('unavailable');
    expect((await cache.read(key, server.read)).cache).toBe('hit');
    cache.invalidateResource('s', 'x://a');
    expect((await cache.read(key, server.read)).cache).toBe('miss');
    expect(server.state.reads).toBe(2);
    expect(shared.metrics).toMatchObject({ publishFailures: 1, unavailable: 2 });
  });

  it('a Redis that accepts but never answers: reads go on alone (unavailable), never wait on it', async () => {
    const port = await startSilentServer();
    const { RedisSharedTier } = await import('../../src/redis.js');
    const shared = new RedisSharedTier({ url: `redis://127.0.0.1:${port}`, commandTimeoutMs: 200 });
    onTestFinished(() => shared.close());
    const cache = new ContentCache({ shared });
    const read = await cache.read(key, async () => body('from the server'));
    expect(read.shared).toBe('unavailable');
    expect(textOf(read.content.result)).toBe('from the server');
  });

  it('kill test: a replica killed while reading delays the others only until its lease lapses', async () => {
    const keyPrefix = freshPrefix();
    const child = spawn(
      process.execPath,
      // A lease long enough (3 s) to outlast the survivor's start on a loaded machine: the survivor
      // must find it held, and wait for its lapse.
      ['--import', 'tsx', holdLeaseScript, testRedisUrl, keyPrefix, '3000'],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    onTestFinished(() => {
      child.kill('SIGKILL');
    });
    const [line] = await once(child.stdout, 'data');
    expect(String(line)).toContain('reading');
    child.kill('SIGKILL');
    await once(child, 'exit');

    // Waits far longer than the lease could: only the lapse of the dead holder's lease frees it.
    const survivor = await replica(keyPrefix, { leaseMs: 300, waitTimeoutMs: 30_000 });
    const read = await survivor.cache.read({ server: 's', uri: 'x://slow' }, async () =>
      body('read by survivor'),
    );
    expect(read.shared).toBe('miss');
    expect(textOf(read.content.result)).toBe('read by survivor');
    expect(survivor.shared.metrics).toMatchObject({ waits: 1, leads: 1, waitTimeouts: 0 });
  });

  it('kill test: Redis restarted mid-run — local copies are marked stale, nothing from before a missed invalidation is served', async () => {
    const redis = await FaultRedis.start();
    onTestFinished(() => redis.destroy());
    const a = await replica('restart:', { url: redis.url });
    const b = await replica('restart:', { url: redis.url });
    const server = resource('v1');
    await a.cache.read(key, server.read);
    expect((await b.cache.read(key, server.read)).shared).toBe('hit');

    const lost = Promise.all([
      nextEvent(a.shared, 'connection-lost'),
      nextEvent(b.shared, 'connection-lost'),
    ]);
    await redis.kill();
    await lost;
    // While Redis is down, B hears the update; A misses it (no bus). B's publish is kept.
    server.state.text = 'v2';
    const kept = nextEvent(b.shared, 'invalidation-kept');
    b.cache.invalidateResource('s', 'x://a');
    expect(await kept).toEqual({ kind: 'updated', server: 's', uri: 'x://a' });

    const restored = Promise.all([
      nextEvent(a.shared, 'connection-restored'),
      nextEvent(b.shared, 'connection-restored'),
    ]);
    await redis.start();
    await restored;

    const after = await a.cache.read(key, server.read);
    expect(textOf(after.content.result)).toBe('v2');
    expect(after.cache).not.toBe('hit');
    expect(server.state.reads).toBe(2);
  }, 30_000);
});

async function openTierUnreachable(): Promise<RedisSharedTier> {
  const { RedisSharedTier } = await import('../../src/redis.js');
  const tier = new RedisSharedTier({ url: 'redis://127.0.0.1:1', commandTimeoutMs: 200 });
  onTestFinished(() => tier.close());
  return tier;
}
