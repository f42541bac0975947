import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ContentCache } from '../../src/cache/content-cache.js';
import { cacheHintsOf } from '../../src/mcp/cache-hints-of.js';
import { body, deferredRead, textOf } from './read-results.js';
import { scriptedTier } from './scripted-tier.js';

// MCP 2026-07-28 (server/utilities/caching): a result's `ttlMs` sets its freshness, `private`
// results are never shared across authorization contexts (issue 34.2).
const hinted = (text: string, ttlMs: unknown, cacheScope?: unknown): ReadResourceResult =>
  ({ ...body(text), ttlMs, ...(cacheScope !== undefined && { cacheScope }) }) as ReadResourceResult;

describe('cacheHintsOf (a result read as untrusted input)', () => {
  it('is undefined for a result that says nothing (2025), and takes the conservative value for what is absent or wrong', () => {
    expect(cacheHintsOf(body('x'))).toBeUndefined();
    expect(cacheHintsOf(hinted('x', 1500, 'public'))).toEqual({ ttlMs: 1500, cacheScope: 'public' });
    expect(cacheHintsOf(hinted('x', 1500))).toEqual({ ttlMs: 1500, cacheScope: 'private' });
    expect(cacheHintsOf({ ...body('x'), cacheScope: 'public' })).toEqual({ ttlMs: 0, cacheScope: 'public' });
    for (const wrong of [-1, 1.5, '1500', Number.MAX_VALUE, Number.NaN, null])
      expect(cacheHintsOf(hinted('x', wrong, 'public'))?.ttlMs).toBe(0);
    expect(cacheHintsOf(hinted('x', 10, 'PUBLIC'))?.cacheScope).toBe('private');
  });
});

describe('ContentCache honours the results’ cache hints', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a result's ttlMs sets its freshness; one without hints keeps the cache's ttlMs", async () => {
    const cache = new ContentCache({ ttlMs: 60_000 });
    let reads = 0;
    const short = async () => hinted(`short ${++reads}`, 500, 'public');
    const plain = async () => body(`plain ${++reads}`);
    await cache.read({ server: 's', uri: 'x://short' }, short);
    await cache.read({ server: 's', uri: 'x://plain' }, plain);

    vi.setSystemTime(1_000_499);
    expect(cache.peek({ server: 's', uri: 'x://short' })?.cache).toBe('hit');
    vi.setSystemTime(1_000_500);
    expect(cache.peek({ server: 's', uri: 'x://short' })).toBeUndefined();
    const again = await cache.read({ server: 's', uri: 'x://short' }, short);
    expect([again.cache, textOf(again.content.result)]).toEqual(['miss', 'short 3']);
    expect(cache.freshUntil(again.content)).toBe(1_000_500 + 500);

    vi.setSystemTime(1_059_999);
    expect(cache.peek({ server: 's', uri: 'x://plain' })?.cache).toBe('hit');
    vi.setSystemTime(1_060_000);
    expect(cache.peek({ server: 's', uri: 'x://plain' })).toBeUndefined();
  });

  it('ttlMs 0 (the spec’s value for an absent one) is never fresh, and a hint is capped by maxTtlMs (by default the ttlMs)', async () => {
    const capped = new ContentCache({ ttlMs: 60_000, maxTtlMs: 2_000 });
    const defaulted = new ContentCache({ ttlMs: 60_000 });
    const day = async () => hinted('a day', 86_400_000, 'public');
    let zeroReads = 0;
    const zero = async () => hinted(`zero ${++zeroReads}`, undefined, 'public');
    await capped.read({ server: 's', uri: 'x://day' }, day);
    await defaulted.read({ server: 's', uri: 'x://day' }, day);
    await capped.read({ server: 's', uri: 'x://zero' }, zero);
    expect((await capped.read({ server: 's', uri: 'x://zero' }, zero)).cache).toBe('miss');
    expect(zeroReads).toBe(2);

    vi.setSystemTime(1_001_999);
    expect(capped.peek({ server: 's', uri: 'x://day' })?.cache).toBe('hit');
    vi.setSystemTime(1_002_000);
    expect(capped.peek({ server: 's', uri: 'x://day' })).toBeUndefined();
    vi.setSystemTime(1_059_999);
    expect(defaulted.peek({ server: 's', uri: 'x://day' })?.cache).toBe('hit');
    vi.setSystemTime(1_060_000);
    expect(defaulted.peek({ server: 's', uri: 'x://day' })).toBeUndefined();
  });

  it('a private result read with shared credentials answers its own user only: a peek, a later read and a joined flight alike', async () => {
    const cache = new ContentCache();
    const reads: string[] = [];
    const readFor = (user: string) => async () => {
      reads.push(user);
      return hinted(`for ${user}`, 60_000, 'private');
    };
    const alice = { server: 's', uri: 'x://me', privateTo: 'alice' };
    const bob = { server: 's', uri: 'x://me', privateTo: 'bob' };

    expect(textOf((await cache.read(alice, readFor('alice'))).content.result)).toBe('for alice');
    expect(cache.peek(alice)?.cache).toBe('hit');
    expect(cache.peek(bob)).toBeUndefined();
    expect(cache.peek({ server: 's', uri: 'x://me' })).toBeUndefined();
    const bobs = await cache.read(bob, readFor('bob'));
    expect([bobs.cache, textOf(bobs.content.result)]).toEqual(['miss', 'for bob']);
    expect(reads).toEqual(['alice', 'bob']);

    // Two users asking at once share one flight; its private answer is its starter's only.
    const slow = deferredRead();
    const carol = cache.read({ server: 's', uri: 'x://new', privateTo: 'carol' }, slow.read);
    const dave = cache.read({ server: 's', uri: 'x://new', privateTo: 'dave' }, readFor('dave'));
    slow.resolve(hinted('for carol', 60_000, 'private'));
    expect(textOf((await carol).content.result)).toBe('for carol');
    expect(textOf((await dave).content.result)).toBe('for dave');
    expect(reads).toEqual(['alice', 'bob', 'dave']);
    expect(
      textOf(cache.peek({ server: 's', uri: 'x://new', privateTo: 'carol' })?.content.result ?? body('')),
    ).toBe('for carol');
  });

  it('a public result is everyone’s; a server that turns a URI private replaces the shared copy', async () => {
    const cache = new ContentCache();
    let scope = 'public';
    let reads = 0;
    const read = async () => hinted(`${scope} ${++reads}`, 1_000, scope);
    await cache.read({ server: 's', uri: 'x://doc', privateTo: 'alice' }, read);
    expect(
      textOf(cache.peek({ server: 's', uri: 'x://doc', privateTo: 'bob' })?.content.result ?? body('')),
    ).toBe('public 1');

    vi.setSystemTime(1_001_000);
    scope = 'private';
    await cache.read({ server: 's', uri: 'x://doc', privateTo: 'alice' }, read);
    expect(
      textOf(cache.peek({ server: 's', uri: 'x://doc', privateTo: 'alice' })?.content.result ?? body('')),
    ).toBe('private 2');
    expect(cache.peek({ server: 's', uri: 'x://doc', privateTo: 'bob' })).toBeUndefined();
    expect(cache.metrics.entries).toBe(1);
  });

  it('a per-user server’s read stays keyed by its principal, private or not', async () => {
    const cache = new ContentCache();
    await cache.read({ server: 's', uri: 'x://me', principal: 'alice' }, async () =>
      hinted('a', 60_000, 'public'),
    );
    expect(cache.peek({ server: 's', uri: 'x://me', principal: 'alice' })?.cache).toBe('hit');
    expect(cache.peek({ server: 's', uri: 'x://me', principal: 'bob' })).toBeUndefined();
    expect(cache.peek({ server: 's', uri: 'x://me' })).toBeUndefined();
  });

  it("the fleet gets only public results fresh for some time, and serves a copy only while its own hint says it's fresh", async () => {
    const fleet = scriptedTier();
    const cache = new ContentCache({ shared: fleet.tier });
    fleet.answer(fleet.lead);
    await cache.read({ server: 's', uri: 'x://public' }, async () => hinted('p', 60_000, 'public'));
    await cache.read({ server: 's', uri: 'x://private' }, async () => hinted('q', 60_000, 'private'));
    await cache.read({ server: 's', uri: 'x://zero' }, async () => hinted('z', 0, 'public'));
    await cache.read({ server: 's', uri: 'x://plain' }, async () => body('unhinted'));
    expect(fleet.filled.map((content) => textOf(content.result))).toEqual(['p', 'unhinted']);
    expect(fleet.calls.filter((call) => call === 'release')).toHaveLength(2);

    // Another replica's copy whose hint has run out is not served: this replica reads.
    const fetchedAt = Date.now() - 2_000;
    const expired = { result: hinted('old', 1_000, 'public'), sha256: 'e'.repeat(64), bytes: 3, fetchedAt };
    fleet.answer(() => ({ kind: 'hit', content: expired }));
    const read = await cache.read({ server: 's', uri: 'x://elsewhere' }, async () =>
      hinted('new', 1_000, 'public'),
    );
    expect([textOf(read.content.result), read.shared]).toEqual(['new', 'miss']);
    const fresh = { ...expired, result: hinted('theirs', 5_000, 'public') };
    fleet.answer(() => ({ kind: 'hit', content: fresh }));
    const served = await cache.read({ server: 's', uri: 'x://theirs' }, async () => body('unused'));
    expect([textOf(served.content.result), served.shared]).toEqual(['theirs', 'hit']);
  });
});
