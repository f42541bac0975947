import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { ContentCache } from '../../src/cache/content-cache.js';
import { body, deferredRead, textOf } from './read-results.js';

describe('ContentCache', () => {
  it('serves a fresh copy as a hit and counts it', async () => {
    const cache = new ContentCache();
    let reads = 0;
    const read = async () => body(`v${++reads}`);
    const first = await cache.read({ server: 's', uri: 'x://a' }, read);
    const second = await cache.read({ server: 's', uri: 'x://a' }, read);
    expect([first.cache, second.cache]).toEqual(['miss', 'hit']);
    expect(textOf(second.content.result)).toBe('v1');
    expect(second.content.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(cache.metrics).toMatchObject({ hits: 1, misses: 1, entries: 1, readsInFlight: 0 });
  });

  it('peek answers a fresh copy at once, the same answer every time, counted as a hit; a miss, a bypass or a stale copy is left to read', async () => {
    const cache = new ContentCache();
    const request = { server: 's', uri: 'x://a' };
    expect(cache.peek(request)).toBeUndefined();
    await cache.read(request, async () => body('v1'));
    const first = cache.peek(request);
    expect(first?.cache).toBe('hit');
    expect(textOf(first?.content.result ?? body(''))).toBe('v1');
    expect(cache.peek(request)).toBe(first);
    expect(await cache.read(request, async () => body('v2'))).toBe(first);
    expect(cache.metrics).toMatchObject({ hits: 3, misses: 1 });
    expect(cache.peek({ ...request, bypass: true })).toBeUndefined();
    expect(cache.peek({ ...request, principal: 'someone' })).toBeUndefined();
    cache.markServerStale('s');
    expect(cache.peek(request)).toBeUndefined();
    expect(cache.metrics.hits).toBe(3);
  });

  it('a request object passed again is looked up by what it names now, not by the key it had', async () => {
    const cache = new ContentCache();
    const request: { server: string; uri: string; principal?: string } = { server: 's', uri: 'x://a' };
    await cache.read(request, async () => body('a'));
    expect(cache.peek(request)?.cache).toBe('hit');
    request.uri = 'x://b';
    expect(cache.peek(request)).toBeUndefined();
    request.uri = 'x://a';
    request.principal = 'someone';
    expect(cache.peek(request)).toBeUndefined();
    await cache.read({ server: 's', uri: 'x://b' }, async () => body('b'));
    request.uri = 'x://b';
    request.principal = undefined;
    expect(textOf(cache.peek(request)?.content.result ?? body(''))).toBe('b');
  });

  it('a request object whose server alone, then principal alone, changed is looked up by what it names now', async () => {
    const cache = new ContentCache();
    const request: { server: string; uri: string; principal?: string } = { server: 's', uri: 'x://a' };
    await cache.read(request, async () => body('from s'));
    await cache.read({ server: 't', uri: 'x://a' }, async () => body('from t'));
    expect(textOf(cache.peek(request)?.content.result ?? body(''))).toBe('from s');
    request.server = 't';
    expect(textOf(cache.peek(request)?.content.result ?? body(''))).toBe('from t');
    request.principal = 'someone';
    expect(cache.peek(request)).toBeUndefined();
  });

  it('single-flight: concurrent callers of one key share one read', async () => {
    const cache = new ContentCache();
    const pending = deferredRead();
    let calls = 0;
    const read = () => {
      calls++;
      return pending.read();
    };
    const waiters = Array.from({ length: 10 }, () => cache.read({ server: 's', uri: 'x://a' }, read));
    expect(cache.metrics.readsInFlight).toBe(1);
    pending.resolve(body('once'));
    const results = await Promise.all(waiters);
    expect(calls).toBe(1);
    expect(results.map((result) => textOf(result.content.result))).toEqual(Array(10).fill('once'));
  });

  it('an invalidation during a read: waiting callers get their result, later callers read again, the old result is not kept', async () => {
    const cache = new ContentCache();
    const old = deferredRead();
    const waiting = cache.read({ server: 's', uri: 'x://a' }, old.read);
    cache.invalidateResource('s', 'x://a');
    const later = cache.read({ server: 's', uri: 'x://a' }, async () => body('new'));
    old.resolve(body('old'));
    expect(textOf((await waiting).content.result)).toBe('old');
    expect(textOf((await later).content.result)).toBe('new');
    const after = await cache.read({ server: 's', uri: 'x://a' }, async () => body('unexpected'));
    expect(after.cache).toBe('hit');
    expect(textOf(after.content.result)).toBe('new');
  });

  it('a server-wide invalidation during a read: waiting callers get their result, the old result is not kept', async () => {
    const cache = new ContentCache();
    const old = deferredRead();
    const other = deferredRead();
    const waiting = cache.read({ server: 's', uri: 'x://a' }, old.read);
    const elsewhere = cache.read({ server: 't', uri: 'x://a' }, other.read);
    cache.invalidateServer('s');
    expect(cache.metrics.readsInFlight).toBe(1);
    old.resolve(body('old'));
    other.resolve(body('kept'));
    expect(textOf((await waiting).content.result)).toBe('old');
    expect(textOf((await elsewhere).content.result)).toBe('kept');
    const after = await cache.read({ server: 's', uri: 'x://a' }, async () => body('new'));
    expect([after.cache, textOf(after.content.result)]).toEqual(['miss', 'new']);
    expect((await cache.read({ server: 't', uri: 'x://a' }, async () => body('x'))).cache).toBe('hit');
  });

  it('clear() drops every entry: the next read of each is a miss', async () => {
    const cache = new ContentCache();
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('a'));
    await cache.read({ server: 't', uri: 'x://b' }, async () => body('b'));
    cache.clear();
    expect(cache.metrics).toMatchObject({ entries: 0, bytesHeld: 0 });
    expect(cache.peek({ server: 's', uri: 'x://a' })).toBeUndefined();
    const again = await cache.read({ server: 't', uri: 'x://b' }, async () => body('b2'));
    expect([again.cache, textOf(again.content.result)]).toEqual(['miss', 'b2']);
  });

  it('dispose() without a shared tier is harmless: the entries stay and are served', async () => {
    const cache = new ContentCache();
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('a'));
    cache.dispose();
    expect((await cache.read({ server: 's', uri: 'x://a' }, async () => body('x'))).cache).toBe('hit');
  });

  it('clear() during a read: the read finishes for its caller and is not kept', async () => {
    const cache = new ContentCache();
    const old = deferredRead();
    const waiting = cache.read({ server: 's', uri: 'x://a' }, old.read);
    cache.clear();
    expect(cache.metrics).toMatchObject({ readsInFlight: 0, entries: 0 });
    old.resolve(body('old'));
    expect(textOf((await waiting).content.result)).toBe('old');
    expect(cache.metrics.entries).toBe(0);
  });

  it('a server-wide invalidation drops every entry of that server and no other', async () => {
    const cache = new ContentCache();
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('a'));
    await cache.read({ server: 's', uri: 'x://b' }, async () => body('b'));
    await cache.read({ server: 't', uri: 'x://a' }, async () => body('t'));
    const events: unknown[] = [];
    cache.on('cache-invalidated', (event) => events.push(event));
    cache.invalidateServer('s');
    cache.invalidateServer('s');
    expect(events).toEqual([
      { server: 's', reason: 'resource list changed', entries: 2 },
      { server: 's', reason: 'resource list changed', entries: 0 },
    ]);
    expect((await cache.read({ server: 't', uri: 'x://a' }, async () => body('x'))).cache).toBe('hit');
    expect((await cache.read({ server: 's', uri: 'x://a' }, async () => body('x'))).cache).toBe('miss');
  });

  it('stale-on-error: a failing read is answered with a copy younger than maxStaleMs, and the error', async () => {
    const cache = new ContentCache({ ttlMs: 0, maxStaleMs: 60_000 });
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('kept'));
    const failure = new Error('server down');
    const result = await cache.read({ server: 's', uri: 'x://a' }, async () => Promise.reject(failure));
    expect(result).toMatchObject({ cache: 'stale', error: failure });
    expect(textOf(result.content.result)).toBe('kept');
    expect(cache.metrics.staleServes).toBe(1);
  });

  it('without a young enough copy, a failing read stays a failure', async () => {
    // The clock is the test's: the copy is exactly 1 ms older than maxStaleMs allows.
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const cache = new ContentCache({ ttlMs: 0, maxStaleMs: 0 });
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('old'));
    vi.setSystemTime(1_000_001);
    await expect(
      cache.read({ server: 's', uri: 'x://a' }, async () => Promise.reject(new Error('down'))),
    ).rejects.toThrow('down');
  });

  it('a closed session marks copies stale: re-read, but still there on error', async () => {
    const cache = new ContentCache();
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('before'));
    cache.markServerStale('s');
    const again = await cache.read({ server: 's', uri: 'x://a' }, async () =>
      Promise.reject(new Error('down')),
    );
    expect(again.cache).toBe('stale');
  });

  it('bypass reads from the server and refreshes the copy; the key includes the principal', async () => {
    const cache = new ContentCache();
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('v1'));
    const bypassed = await cache.read({ server: 's', uri: 'x://a', bypass: true }, async () => body('v2'));
    expect(bypassed.cache).toBe('bypass');
    expect(
      textOf((await cache.read({ server: 's', uri: 'x://a' }, async () => body('v3'))).content.result),
    ).toBe('v2');
    expect(
      (await cache.read({ server: 's', uri: 'x://a', principal: 'alice' }, async () => body('alice'))).cache,
    ).toBe('miss');
  });

  it('stays within maxBytes, evicting the least recently used, and never keeps an entry above a quarter of it', async () => {
    const cache = new ContentCache({ maxBytes: 64 * 1024 });
    for (let index = 0; index < 100; index++) {
      await cache.read({ server: 's', uri: `x://${index}` }, async () => body('x'.repeat(4000)));
    }
    expect(cache.metrics.bytesHeld).toBeLessThanOrEqual(64 * 1024);
    expect(cache.metrics.evictions).toBeGreaterThan(80);
    await cache.read({ server: 's', uri: 'x://huge' }, async () => body('x'.repeat(20_000)));
    expect(cache.metrics.tooLargeToCache).toBe(1);
    expect((await cache.read({ server: 's', uri: 'x://huge' }, async () => body('again'))).cache).toBe(
      'miss',
    );
  });

  it('a caller that gives up does not cancel the shared read for the others', async () => {
    const cache = new ContentCache();
    const pending = deferredRead();
    const controller = new AbortController();
    const impatient = cache.read({ server: 's', uri: 'x://a', signal: controller.signal }, pending.read);
    const patient = cache.read({ server: 's', uri: 'x://a' }, pending.read);
    controller.abort(new Error('deadline'));
    await expect(impatient).rejects.toThrow('deadline');
    pending.resolve(body('done'));
    expect(textOf((await patient).content.result)).toBe('done');
  });

  it('refuses bad options naming the field', () => {
    expect(() => new ContentCache({ maxBytes: -1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', field: 'cache.maxBytes' }),
    );
  });
});

describe('ContentCache.stillFresh and countHits (a kept turn’s checks)', () => {
  /** A cache holding x://a and x://b of server s, and the contents their peeks answered. */
  async function held(options: ConstructorParameters<typeof ContentCache>[0] = {}) {
    const cache = new ContentCache(options);
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('a'));
    await cache.read({ server: 's', uri: 'x://b' }, async () => body('b'));
    const a = cache.peek({ server: 's', uri: 'x://a' })?.content;
    const b = cache.peek({ server: 's', uri: 'x://b' })?.content;
    if (!a || !b) throw new Error('not held');
    return { cache, a, b };
  }

  it('answers true for contents still held and fresh (and for none); the check counts no hit', async () => {
    const { cache, a, b } = await held();
    const hits = cache.metrics.hits;
    expect(cache.stillFresh([a, b])).toBe(true);
    expect(cache.stillFresh([])).toBe(true);
    expect(cache.metrics.hits).toBe(hits);
  });

  it('answers false once any one of them was invalidated, whichever its place', async () => {
    const { cache, a, b } = await held();
    cache.invalidateResource('s', 'x://b');
    expect(cache.stillFresh([a, b])).toBe(false);
    expect(cache.stillFresh([b, a])).toBe(false);
    expect(cache.stillFresh([a])).toBe(true);
  });

  it('answers false for a copy replaced by a newer read (a bypass), true for the newer one', async () => {
    const { cache, a } = await held();
    const newer = await cache.read({ server: 's', uri: 'x://a', bypass: true }, async () => body('a2'));
    expect(cache.stillFresh([a])).toBe(false);
    expect(cache.stillFresh([cache.peek({ server: 's', uri: 'x://a' })?.content ?? a])).toBe(true);
    expect(newer.cache).toBe('bypass');
  });

  it('answers false for a copy marked stale (its session closed), evicted, or cleared', async () => {
    const stale = await held();
    stale.cache.markServerStale('s');
    expect(stale.cache.stillFresh([stale.a])).toBe(false);

    // Reads of other URIs until one is evicted: the least recently used, x://a (peeks are no use).
    const small = await held({ maxBytes: 4 * (512 + 64) });
    for (let index = 0; small.cache.metrics.evictions === 0; index++) {
      await small.cache.read({ server: 's', uri: `x://c${index}` }, async () => body('c'));
    }
    expect(small.cache.metrics.evictions).toBe(1);
    expect(small.cache.stillFresh([small.a])).toBe(false);
    expect(small.cache.stillFresh([small.b])).toBe(true);

    const cleared = await held();
    cleared.cache.clear();
    expect(cleared.cache.stillFresh([cleared.b])).toBe(false);
  });

  it('answers false once a copy is ttlMs old, true 1 ms before', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const { cache, a } = await held({ ttlMs: 100 });
    vi.setSystemTime(1_000_099);
    expect(cache.stillFresh([a])).toBe(true);
    vi.setSystemTime(1_000_100);
    expect(cache.stillFresh([a])).toBe(false);
  });

  it('retirements counts each copy retired (invalidated, replaced, evicted, cleared) or marked stale, and nothing else', async () => {
    const { cache } = await held();
    expect(cache.retirements).toBe(0);
    // Reads, peeks and hits retire nothing.
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('a'));
    cache.peek({ server: 's', uri: 'x://b' });
    expect(cache.retirements).toBe(0);
    cache.invalidateResource('s', 'x://b');
    expect(cache.retirements).toBe(1);
    // A bypass replaces x://a's copy.
    await cache.read({ server: 's', uri: 'x://a', bypass: true }, async () => body('a2'));
    expect(cache.retirements).toBe(2);
    // Marked stale once: a copy already stale is not counted again.
    cache.markServerStale('s');
    expect(cache.retirements).toBe(3);
    cache.markServerStale('s');
    expect(cache.retirements).toBe(3);
    cache.clear();
    expect(cache.retirements).toBe(4);

    const small = await held({ maxBytes: 4 * (512 + 64) });
    for (let index = 0; small.cache.metrics.evictions === 0; index++) {
      await small.cache.read({ server: 's', uri: `x://c${index}` }, async () => body('c'));
    }
    expect(small.cache.retirements).toBe(1);
  });

  it('countHits adds that many hits to the metrics, nothing else', async () => {
    const { cache } = await held();
    const before = cache.metrics;
    cache.countHits(3);
    expect(cache.metrics).toEqual({ ...before, hits: before.hits + 3 });
  });
});
