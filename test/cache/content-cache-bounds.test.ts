import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { ContentCache } from '../../src/cache/content-cache.js';
import { body, deferredRead, textOf } from './read-results.js';

/** The test's clock (Date only; timers stay real). */
function fakeDate(now: number) {
  vi.useFakeTimers({ toFake: ['Date'], now });
  onTestFinished(() => {
    vi.useRealTimers();
  });
}

describe('ContentCache keys and invalidation', () => {
  it('an updated URI drops that URI for every principal, and nothing of a longer URI or another server', async () => {
    const cache = new ContentCache();
    const keep = [
      { server: 's', uri: 'x://ab' },
      { server: 'ss', uri: 'x://a' },
      { server: 't', uri: 'x://a' },
    ];
    for (const request of [
      { server: 's', uri: 'x://a' },
      { server: 's', uri: 'x://a', principal: 'bob' },
      ...keep,
    ])
      await cache.read(request, async () => body('v1'));
    const events: unknown[] = [];
    cache.on('cache-invalidated', (event) => events.push(event));
    cache.invalidateResource('s', 'x://a');
    expect(events).toEqual([{ server: 's', uri: 'x://a', reason: 'resource updated', entries: 2 }]);
    for (const request of keep) expect((await cache.read(request, async () => body('v2'))).cache).toBe('hit');
    expect(
      (await cache.read({ server: 's', uri: 'x://a', principal: 'bob' }, async () => body('v2'))).cache,
    ).toBe('miss');
  });

  it('an updated URI during reads of it and of others: only its reads are not kept', async () => {
    const cache = new ContentCache();
    const a = deferredRead();
    const other = deferredRead();
    const elsewhere = deferredRead();
    const reading = [
      cache.read({ server: 's', uri: 'x://a' }, a.read),
      cache.read({ server: 's', uri: 'x://ab' }, other.read),
      cache.read({ server: 't', uri: 'x://a' }, elsewhere.read),
    ];
    cache.invalidateResource('s', 'x://a');
    expect(cache.metrics.readsInFlight).toBe(2);
    a.resolve(body('a'));
    other.resolve(body('ab'));
    elsewhere.resolve(body('t'));
    await Promise.all(reading);
    expect(cache.metrics.entries).toBe(2);
  });

  it('a server-wide invalidation spares a server whose name starts the same', async () => {
    const cache = new ContentCache();
    await cache.read({ server: 'ss', uri: 'x://a' }, async () => body('ss'));
    const pending = deferredRead();
    const reading = cache.read({ server: 'ss', uri: 'x://b' }, pending.read);
    cache.invalidateServer('s');
    expect(cache.metrics.readsInFlight).toBe(1);
    pending.resolve(body('b'));
    await reading;
    expect(cache.metrics.entries).toBe(2);
  });

  it('a closed session marks each copy stale once; other servers stay fresh', async () => {
    const cache = new ContentCache();
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('a'));
    await cache.read({ server: 's', uri: 'x://b' }, async () => body('b'));
    await cache.read({ server: 't', uri: 'x://a' }, async () => body('t'));
    const events: unknown[] = [];
    cache.on('cache-invalidated', (event) => events.push(event));
    cache.markServerStale('s');
    cache.markServerStale('s');
    expect(events).toEqual([
      { server: 's', reason: 'session closed', entries: 2 },
      { server: 's', reason: 'session closed', entries: 0 },
    ]);
    expect((await cache.read({ server: 't', uri: 'x://a' }, async () => body('x'))).cache).toBe('hit');
    const reread = await cache.read({ server: 's', uri: 'x://a' }, async () => body('a2'));
    expect([reread.cache, textOf(reread.content.result)]).toEqual(['miss', 'a2']);
    // The fresh copy replaced the stale one: served fresh again.
    expect((await cache.read({ server: 's', uri: 'x://a' }, async () => body('x'))).cache).toBe('hit');
  });

  it('markAllStale: nothing is served fresh, every server says so', async () => {
    const cache = new ContentCache();
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('a'));
    await cache.read({ server: 't', uri: 'x://a' }, async () => body('t'));
    const events: unknown[] = [];
    cache.on('cache-invalidated', (event) => events.push(event));
    cache.markAllStale('missed messages');
    expect(events).toEqual([
      { server: 's', reason: 'missed messages', entries: 1 },
      { server: 't', reason: 'missed messages', entries: 1 },
    ]);
    for (const server of ['s', 't']) {
      const failed = await cache.read({ server, uri: 'x://a' }, async () =>
        Promise.reject(new Error('down')),
      );
      expect(failed.cache).toBe('stale');
    }
  });

  it('counts every kind of read and invalidation, and reports each read from the server', async () => {
    const cache = new ContentCache({ ttlMs: 0, maxStaleMs: 60_000 });
    const reads: { durationMs: number }[] = [];
    cache.on('resource-read', (event) => reads.push(event));
    const before = performance.now();
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('héllo'));
    await cache.read({ server: 's', uri: 'x://a', bypass: true }, async () => body('again'));
    await cache.read({ server: 's', uri: 'x://a' }, async () => Promise.reject(new Error('down')));
    cache.invalidateServer('t');
    expect(cache.metrics).toEqual({
      hits: 0,
      misses: 2,
      bypasses: 1,
      staleServes: 1,
      evictions: 0,
      invalidations: 1,
      tooLargeToCache: 0,
      entries: 1,
      bytesHeld: 5 + 512,
      readsInFlight: 0,
      probationBytesHeld: 0,
      promotions: 0,
    });
    expect(reads).toEqual([
      { server: 's', uri: 'x://a', bytes: 6, durationMs: expect.any(Number) },
      { server: 's', uri: 'x://a', bytes: 5, durationMs: expect.any(Number) },
    ]);
    // Each read's own duration: within the time the whole sequence took.
    const elapsed = performance.now() - before;
    for (const { durationMs } of reads) expect(durationMs).toBeGreaterThanOrEqual(0);
    for (const { durationMs } of reads) expect(durationMs).toBeLessThanOrEqual(elapsed);
  });
});

describe('ContentCache flights', () => {
  it('a bypass does not join a read in flight; it reads again', async () => {
    const cache = new ContentCache();
    const pending = deferredRead();
    const waiting = cache.read({ server: 's', uri: 'x://a' }, pending.read);
    const bypassed = await cache.read({ server: 's', uri: 'x://a', bypass: true }, async () =>
      body('direct'),
    );
    expect(textOf(bypassed.content.result)).toBe('direct');
    pending.resolve(body('slow'));
    expect(textOf((await waiting).content.result)).toBe('slow');
  });

  it('an old read that lands after an invalidation leaves the new read in flight, and later callers join it', async () => {
    const cache = new ContentCache();
    const old = deferredRead();
    const fresh = deferredRead();
    const first = cache.read({ server: 's', uri: 'x://a' }, old.read);
    cache.invalidateResource('s', 'x://a');
    let freshCalls = 0;
    const second = cache.read({ server: 's', uri: 'x://a' }, () => {
      freshCalls++;
      return fresh.read();
    });
    old.resolve(body('old'));
    await first;
    expect(cache.metrics.readsInFlight).toBe(1);
    const third = cache.read({ server: 's', uri: 'x://a' }, async () => body('unexpected'));
    fresh.resolve(body('new'));
    expect((await Promise.all([second, third])).map((read) => textOf(read.content.result))).toEqual([
      'new',
      'new',
    ]);
    expect(freshCalls).toBe(1);
    expect(cache.metrics.readsInFlight).toBe(0);
  });

  it('a failed read ends its flight: the next caller reads again', async () => {
    const cache = new ContentCache();
    await expect(
      cache.read({ server: 's', uri: 'x://a' }, async () => Promise.reject(new Error('down'))),
    ).rejects.toThrow('down');
    expect(cache.metrics.readsInFlight).toBe(0);
    expect(
      textOf((await cache.read({ server: 's', uri: 'x://a' }, async () => body('up'))).content.result),
    ).toBe('up');
  });

  it('a caller who gave up is not served a stale copy', async () => {
    const cache = new ContentCache({ ttlMs: 0 });
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('old'));
    const controller = new AbortController();
    const pending = deferredRead();
    const impatient = cache.read({ server: 's', uri: 'x://a', signal: controller.signal }, pending.read);
    controller.abort(new Error('deadline'));
    await expect(impatient).rejects.toThrow('deadline');
    pending.resolve(body('new'));
  });
});

describe('ContentCache bounds', () => {
  it('fresh for exactly ttlMs', async () => {
    fakeDate(1_000_000);
    const cache = new ContentCache({ ttlMs: 1000 });
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('v1'));
    vi.setSystemTime(1_000_999);
    expect((await cache.read({ server: 's', uri: 'x://a' }, async () => body('v2'))).cache).toBe('hit');
    vi.setSystemTime(1_001_000);
    expect((await cache.read({ server: 's', uri: 'x://a' }, async () => body('v2'))).cache).toBe('miss');
  });

  it('by default fresh for 5 minutes, and served stale for an hour', async () => {
    fakeDate(1_000_000);
    const cache = new ContentCache();
    expect(cache.ttlMs).toBe(300_000);
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('v1'));
    vi.setSystemTime(1_000_000 + 299_999);
    expect((await cache.read({ server: 's', uri: 'x://a' }, async () => body('v2'))).cache).toBe('hit');
    vi.setSystemTime(1_000_000 + 300_000);
    const failing = async () => Promise.reject(new Error('down'));
    expect((await cache.read({ server: 's', uri: 'x://a' }, failing)).cache).toBe('stale');
    vi.setSystemTime(1_000_000 + 3_600_000);
    expect((await cache.read({ server: 's', uri: 'x://a' }, failing)).cache).toBe('stale');
    vi.setSystemTime(1_000_000 + 3_600_001);
    await expect(cache.read({ server: 's', uri: 'x://a' }, failing)).rejects.toThrow('down');
  });

  it('an entry may take a quarter of maxBytes, with 512 bytes of overhead', async () => {
    const cache = new ContentCache({ maxBytes: 4096 });
    await cache.read({ server: 's', uri: 'x://fits' }, async () => body('x'.repeat(512)));
    await cache.read({ server: 's', uri: 'x://over' }, async () => body('x'.repeat(513)));
    expect(cache.metrics).toMatchObject({ entries: 1, bytesHeld: 1024, tooLargeToCache: 1 });
    expect((await cache.read({ server: 's', uri: 'x://fits' }, async () => body(''))).cache).toBe('hit');
  });

  it('by default holds 32 MiB: an 8 MiB entry (with its overhead) is kept, one byte more is not', async () => {
    const cache = new ContentCache();
    const text = 'x'.repeat(8 * 1024 * 1024 - 512);
    await cache.read({ server: 's', uri: 'x://big' }, async () => body(text));
    expect(cache.metrics).toMatchObject({ entries: 1, tooLargeToCache: 0 });
    await cache.read({ server: 's', uri: 'x://bigger' }, async () => body(`${text}x`));
    expect(cache.metrics).toMatchObject({ entries: 1, tooLargeToCache: 1 });
  });

  it('evicts the least recently used, counting each eviction', async () => {
    // Admission off: the main LRU has all 4096 bytes (see content-cache-admission.test.ts).
    const cache = new ContentCache({ maxBytes: 4096, probationMaxBytes: 0 });
    for (const uri of ['x://1', 'x://2', 'x://3', 'x://4'])
      await cache.read({ server: 's', uri }, async () => body('x'.repeat(512)));
    await cache.read({ server: 's', uri: 'x://1' }, async () => body('unexpected'));
    await cache.read({ server: 's', uri: 'x://5' }, async () => body('x'.repeat(512)));
    expect(cache.metrics).toMatchObject({ entries: 4, evictions: 1, bytesHeld: 4096 });
    expect((await cache.read({ server: 's', uri: 'x://1' }, async () => body(''))).cache).toBe('hit');
    expect((await cache.read({ server: 's', uri: 'x://2' }, async () => body(''))).cache).toBe('miss');
    const events: unknown[] = [];
    cache.on('cache-invalidated', (event) => events.push(event));
    cache.invalidateServer('s');
    expect(events).toEqual([{ server: 's', reason: 'resource list changed', entries: 4 }]);
  });

  it('marking copies stale is not a use of them: the least recently used is still evicted first', async () => {
    const cache = new ContentCache({ maxBytes: 4096, probationMaxBytes: 0 });
    for (const [server, uri] of [
      ['s', 'x://1'],
      ['t', 'x://2'],
      ['s', 'x://3'],
      ['t', 'x://4'],
    ] as const)
      await cache.read({ server, uri }, async () => body('x'.repeat(512)));
    cache.markServerStale('s');
    await cache.read({ server: 't', uri: 'x://5' }, async () => body('x'.repeat(512)));
    expect(cache.metrics).toMatchObject({ entries: 4, evictions: 1 });
    const failing = async () => Promise.reject(new Error('down'));
    // The oldest, s's x://1, went; the stale x://3 is still there to serve on error.
    await expect(cache.read({ server: 's', uri: 'x://1' }, failing)).rejects.toThrow('down');
    expect((await cache.read({ server: 's', uri: 'x://3' }, failing)).cache).toBe('stale');
    expect((await cache.read({ server: 't', uri: 'x://2' }, failing)).cache).toBe('hit');
  });

  it('an entry replaced by a fresh read is not counted as an eviction', async () => {
    const cache = new ContentCache({ ttlMs: 0 });
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('v1'));
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('v2'));
    expect(cache.metrics).toMatchObject({ entries: 1, evictions: 0 });
    const events: { entries: number }[] = [];
    cache.on('cache-invalidated', (event) => events.push(event));
    cache.invalidateResource('s', 'x://a');
    expect(events).toEqual([{ server: 's', uri: 'x://a', reason: 'resource updated', entries: 1 }]);
  });

  it('refuses a negative ttlMs or maxStaleMs and a zero maxBytes, naming the field', () => {
    for (const [options, field] of [
      [{ ttlMs: -1 }, 'cache.ttlMs'],
      [{ maxStaleMs: -1 }, 'cache.maxStaleMs'],
      [{ maxBytes: 0 }, 'cache.maxBytes'],
    ] as const) {
      expect(() => new ContentCache(options)).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTION', field }),
      );
    }
  });
});
