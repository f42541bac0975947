import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ContentCache } from '../../src/cache/content-cache.js';
import { redisKeys } from '../../src/replicas/redis-keys.js';
import { FaultRedis } from '../support/fault-redis.js';
import { openTier } from './support/redis-test.js';

const key = { server: 's', uri: 'x://a' };
const body = (text: string): ReadResourceResult => ({
  contents: [{ uri: 'x://a', mimeType: 'text/plain', text }],
});
const textOf = (result: ReadResourceResult) => (result.contents[0] as { text: string }).text;

/** One replica on `url`: its own tier and local cache. */
async function replica(url: string) {
  const shared = await openTier({ url, keyPrefix: 'epochs:' });
  const cache = new ContentCache({ shared });
  onTestFinished(() => cache.dispose());
  return { shared, cache };
}

/** Resolves with the next `name` event's payload (eventemitter3 has no `once` helper). */
function nextEvent<Payload = unknown>(emitter: object, name: string): Promise<Payload> {
  const { once } = emitter as { once: (name: string, listener: (payload: Payload) => void) => void };
  return new Promise((resolve) => once.call(emitter, name, resolve));
}

/** One resource at one server: its current text, and how often it was read. */
function resource(initial: string) {
  const state = { text: initial, reads: 0 };
  const read = async () => {
    state.reads++;
    return body(state.text);
  };
  return { state, read };
}

describe("RedisSharedTier: a copy carries its invalidation generation, and a replica's memory of the highest it heard wins", () => {
  it('Redis restarted from a snapshot older than an invalidation: the copy from before it is never served', async () => {
    const redis = await FaultRedis.start();
    onTestFinished(() => redis.destroy());
    const a = await replica(redis.url);
    const b = await replica(redis.url);
    const server = resource('v1');
    await a.cache.read(key, server.read);
    expect((await b.cache.read(key, server.read)).shared).toBe('hit');
    await redis.save();

    // After the snapshot: the resource changes, B hears it and tells the fleet; A hears it.
    server.state.text = 'v2';
    const heard = nextEvent(a.shared, 'invalidation-received');
    b.cache.invalidateResource('s', 'x://a');
    await heard;
    expect(textOf((await a.cache.read(key, server.read)).content.result)).toBe('v2');

    // Redis goes back to the snapshot: the copy of v1 and the generation it was written under.
    const restored = Promise.all([
      nextEvent(a.shared, 'connection-restored'),
      nextEvent(b.shared, 'connection-restored'),
    ]);
    await redis.restartFromSnapshot();
    await restored;
    const rolledBack = await redis.keys('epochs:content:*');
    expect(rolledBack).toHaveLength(1);

    const readsBefore = server.state.reads;
    const afterA = await a.cache.read(key, server.read);
    expect(textOf(afterA.content.result)).toBe('v2');
    expect(afterA.shared).toBe('miss');
    expect(a.shared.metrics.outdatedCopies).toBe(1);
    const afterB = await b.cache.read(key, server.read);
    expect(textOf(afterB.content.result)).toBe('v2');
    expect(server.state.reads - readsBefore).toBeLessThanOrEqual(2);

    // A replica that started after the restart heard nothing, yet is not served v1: the
    // generation in Redis was raised back by those that heard.
    const c = await replica(redis.url);
    const afterC = await c.cache.read(key, async () => body('unexpected'));
    expect(textOf(afterC.content.result)).toBe('v2');
  }, 30_000);

  it('an invalidation after the rollback counts on from the highest generation heard, not from what Redis holds', async () => {
    const redis = await FaultRedis.start();
    onTestFinished(() => redis.destroy());
    const a = await replica(redis.url);
    const b = await replica(redis.url);
    await redis.save();
    for (let round = 0; round < 3; round++) {
      const heard = nextEvent(b.shared, 'invalidation-received');
      a.cache.invalidateResource('s', 'x://a');
      await heard;
    }
    const generationKey = redisKeys('epochs:').uriGeneration('s', 'x://a');
    const restored = Promise.all([
      nextEvent(a.shared, 'connection-restored'),
      nextEvent(b.shared, 'connection-restored'),
    ]);
    await redis.restartFromSnapshot();
    await restored;
    expect(await redis.keys(generationKey)).toEqual([]);

    // B heard generation 3; its next invalidation is 4, and A learns it.
    const heardByA = nextEvent(a.shared, 'invalidation-received');
    b.cache.invalidateResource('s', 'x://a');
    await heardByA;
    const client = new Redis(redis.url);
    onTestFinished(() => client.disconnect());
    expect(await client.get(generationKey)).toBe('4');
  }, 30_000);
});
