import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { onTestFinished } from 'vitest';
import { RedisSharedTier, type RedisSharedTierOptions } from '../../../src/redis.js';
import { redisUrl } from '../../support/probe-services.js';
import { requireServices } from '../../support/services.js';

// The machine's Redis on 6379 (`.ci/run` starts one when none listens); each test its own key
// prefix, whose keys are deleted when it finishes.
// A test that needs it skips, with the probe's line, when nothing listens there.
export const testRedisUrl = redisUrl;

/** A key prefix no other test uses; its keys are deleted when the test finishes. */
export function freshPrefix(url = testRedisUrl): string {
  if (url === testRedisUrl) requireServices('redis');
  const prefix = `mcp-context-test:${randomBytes(6).toString('hex')}:`;
  onTestFinished(async () => {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } catch {
      // A throwaway Redis is already gone, and its keys with it.
    } finally {
      redis.disconnect();
    }
  });
  return prefix;
}

/** A tier (one replica's connections), ready, closed when the test finishes. */
export async function openTier(options: RedisSharedTierOptions = {}): Promise<RedisSharedTier> {
  requireServices('redis');
  const tier = new RedisSharedTier({ url: testRedisUrl, ...options });
  onTestFinished(() => tier.close());
  await tier.ready();
  return tier;
}
