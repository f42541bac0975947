import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ContentCache } from '../../src/cache/content-cache.js';
import { measureContents } from '../../src/cache/measure-contents.js';
import type { SharedKey } from '../../src/cache/shared-tier.js';
import type { RedisSharedTier } from '../../src/redis.js';
import { freshPrefix, openTier } from './support/redis-test.js';

const key = { server: 's', uri: 'x://a' };
const body = (text: string): ReadResourceResult => ({
  contents: [{ uri: 'x://a', mimeType: 'text/plain', text }],
});
const textOf = (result: ReadResourceResult) => (result.contents[0] as { text: string }).text;

/**
 * Stores `text` for the fleet as the content cache of a replica whose clock reads `writerClock()`
 * stamps it: fetched "now" by that clock.
 */
async function fillAs(
  writer: RedisSharedTier,
  sharedKey: SharedKey,
  text: string,
  writerClock: () => number,
) {
  const lookup = await writer.lookup(sharedKey);
  if (lookup.kind !== 'lead') throw new Error(`expected the lease, got ${lookup.kind}`);
  await lookup.fill({ ...measureContents(body(text)), fetchedAt: writerClock() });
}

const realClock = () => Date.now();
const aheadBy = (ms: number) => () => Date.now() + ms;

describe("RedisSharedTier: a copy's freshness is judged by the reader's clock", () => {
  it("a writer whose clock runs 60 s ahead does not extend a copy's life past the reader's ttlMs", async () => {
    const keyPrefix = freshPrefix();
    // The writer keeps copies a minute in Redis; the reader serves them for 300 ms.
    const writer = await openTier({ keyPrefix, ttlMs: 60_000 });
    await fillAs(writer, key, 'v1', aheadBy(60_000));
    const shared = await openTier({ keyPrefix, ttlMs: 300 });
    const reader = new ContentCache({ shared, ttlMs: 300 });
    onTestFinished(() => reader.dispose());

    const first = await reader.read(key, async () => body('unexpected'));
    expect([first.shared, textOf(first.content.result)]).toEqual(['hit', 'v1']);
    // Held on the reader's clock, not the writer's minute ahead.
    expect(first.content.fetchedAt).toBeLessThanOrEqual(Date.now());

    // The resource changes and no invalidation is heard: only the TTL bounds the old copy.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const later = await reader.read(key, async () => body('v2'));
    expect([later.cache, later.shared, textOf(later.content.result)]).toEqual(['miss', 'miss', 'v2']);
    expect(shared.metrics).toMatchObject({ expiredCopies: 1, hits: 1 });
  });

  it("a reader whose clock runs 60 s ahead of the writer's finds the copy expired: a miss, counted", async () => {
    const keyPrefix = freshPrefix();
    const writer = await openTier({ keyPrefix, ttlMs: 120_000 });
    await fillAs(writer, key, 'v1', realClock);
    const reader = await openTier({ keyPrefix, ttlMs: 30_000, now: aheadBy(60_000) });
    const lookup = await reader.lookup(key);
    expect(lookup.kind).toBe('lead');
    if (lookup.kind === 'lead') lookup.release();
    expect(reader.metrics).toMatchObject({ expiredCopies: 1, hits: 0, leads: 1 });
  });

  it('a writer whose clock runs 60 s behind: its copy counts as fetched 60 s ago (the earlier time wins)', async () => {
    const keyPrefix = freshPrefix();
    const writer = await openTier({ keyPrefix, ttlMs: 120_000 });
    await fillAs(writer, key, 'v1', aheadBy(-60_000));
    const reader = await openTier({ keyPrefix, ttlMs: 30_000, now: realClock });
    expect((await reader.lookup(key)).kind).toBe('lead');
    expect(reader.metrics.expiredCopies).toBe(1);
    // Within a longer ttlMs, the same copy is served, held as fetched when the writer said.
    const patient = await openTier({ keyPrefix, ttlMs: 90_000, now: realClock });
    const hit = await patient.lookup(key);
    expect(hit.kind).toBe('hit');
    if (hit.kind === 'hit') expect(Date.now() - hit.content.fetchedAt).toBeGreaterThanOrEqual(60_000);
  });

  it("a copy within ttlMs by every clock is served, with the reader's time at most its own now", async () => {
    const keyPrefix = freshPrefix();
    const writer = await openTier({ keyPrefix });
    await fillAs(writer, key, 'v1', aheadBy(5_000));
    const reader = await openTier({ keyPrefix, now: aheadBy(-2_000) });
    const hit = await reader.lookup(key);
    expect(hit.kind).toBe('hit');
    if (hit.kind === 'hit') {
      expect(textOf(hit.content.result)).toBe('v1');
      expect(hit.content.fetchedAt).toBeLessThanOrEqual(Date.now() - 2_000);
    }
    expect(reader.metrics.expiredCopies).toBe(0);
  });
});
