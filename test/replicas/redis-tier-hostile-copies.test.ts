import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ContentCache } from '../../src/cache/content-cache.js';
import { redisKeys } from '../../src/replicas/redis-keys.js';
import { hostileCopyBodies } from '../support/hostile-fleet-input.js';
import { freshPrefix, openTier, testRedisUrl } from './support/redis-test.js';

const key = { server: 's', uri: 'x://a' };
const body = (text: string): ReadResourceResult => ({
  contents: [{ uri: 'x://a', mimeType: 'text/plain', text }],
});
const textOf = (result: ReadResourceResult) => (result.contents[0] as { text: string }).text;

/** One replica: its own tier and local cache on `keyPrefix`. */
async function replica(keyPrefix: string, options: Parameters<typeof openTier>[0] = {}) {
  const shared = await openTier({ keyPrefix, ...options });
  const cache = new ContentCache({ shared });
  onTestFinished(() => cache.dispose());
  return { shared, cache };
}

/** A connection of the test's own, writing behind the tiers' back. */
function behindTheTier(): Redis {
  const redis = new Redis(testRedisUrl);
  onTestFinished(() => redis.disconnect());
  return redis;
}

describe('RedisSharedTier: a shared copy is untrusted input', () => {
  for (const [name, planted] of hostileCopyBodies) {
    it(`a copy whose body is ${name} is a miss, counted; the replica reads its own server and replaces it`, async () => {
      const keyPrefix = freshPrefix();
      const raw = behindTheTier();
      // Under the current generations (none raised yet): the tier would serve it as is.
      await raw.hset(redisKeys(keyPrefix).entry(key), { s: '0', u: '0', body: planted });
      const reader = await replica(keyPrefix);
      const read = await reader.cache.read(key, async () => body('from its own server'));
      expect(read.shared).toBe('miss');
      expect(textOf(read.content.result)).toBe('from its own server');
      expect(reader.shared.metrics).toMatchObject({ malformedCopies: 1, hits: 0, leads: 1 });
      // The planted value is gone: the next replica is served the copy just read.
      const next = await replica(keyPrefix);
      const served = await next.cache.read(key, async () => body('unexpected'));
      expect([served.shared, textOf(served.content.result)]).toEqual(['hit', 'from its own server']);
    });
  }

  const plantedKinds: [string, (raw: Redis, entry: string) => Promise<unknown>][] = [
    ['a plain string', (raw, entry) => raw.set(entry, 'null')],
    ['a list', (raw, entry) => raw.rpush(entry, 'a', 'b')],
    ['a set', (raw, entry) => raw.sadd(entry, 'a')],
    ['a hash without a body', (raw, entry) => raw.hset(entry, { s: '0', u: '0' })],
    [
      'a body larger than maxEntryBytes',
      (raw, entry) => raw.hset(entry, { s: '0', u: '0', body: JSON.stringify({ pad: 'x'.repeat(4096) }) }),
    ],
  ];
  for (const [name, plant] of plantedKinds) {
    it(`a copy's key holding ${name} is a miss, counted; the replica reads its own and replaces it`, async () => {
      const keyPrefix = freshPrefix();
      await plant(behindTheTier(), redisKeys(keyPrefix).entry(key));
      const reader = await replica(keyPrefix, { maxEntryBytes: 2048 });
      const read = await reader.cache.read(key, async () => body('own'));
      expect([read.shared, textOf(read.content.result)]).toEqual(['miss', 'own']);
      expect(reader.shared.metrics).toMatchObject({ malformedCopies: 1, unavailable: 0 });
      const next = await replica(keyPrefix, { maxEntryBytes: 2048 });
      expect((await next.cache.read(key, async () => body('unexpected'))).shared).toBe('hit');
    });
  }

  it('a copy whose contents no longer hash to its recorded sha256 is a miss, counted, never served', async () => {
    const keyPrefix = freshPrefix();
    const writer = await replica(keyPrefix);
    const written = await writer.cache.read(key, async () => body('what the server said'));
    const entry = redisKeys(keyPrefix).entry(key);
    const raw = behindTheTier();
    const stored = JSON.parse((await raw.hget(entry, 'body')) ?? 'null');
    expect(stored.sha256).toBe(written.content.sha256);
    // The text is changed, its sha256 and byte count left as they were.
    stored.result.contents[0].text = 'what the server never said';
    await raw.hset(entry, 'body', JSON.stringify(stored));

    const reader = await replica(keyPrefix);
    const read = await reader.cache.read(key, async () => body('what the server said'));
    expect(read.shared).toBe('miss');
    expect(textOf(read.content.result)).toBe('what the server said');
    expect(reader.shared.metrics).toMatchObject({ mismatchedCopies: 1, hits: 0 });

    // The same length, another text: the byte count matches, the hash does not.
    stored.result.contents[0].text = 'WHAT THE SERVER SAID';
    await raw.hset(entry, 'body', JSON.stringify(stored));
    const other = await replica(keyPrefix);
    const again = await other.cache.read(key, async () => body('what the server said'));
    expect([again.shared, textOf(again.content.result)]).toEqual(['miss', 'what the server said']);
    expect(other.shared.metrics.mismatchedCopies).toBe(1);
  });
});
