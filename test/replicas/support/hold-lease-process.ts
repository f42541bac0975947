// Run as a separate process: `node --import tsx hold-lease-process.ts <redis-url> <prefix> <leaseMs>`.
// A replica that starts reading x://slow under the fleet's lease and never finishes: it prints
// "reading" once its read has begun (it holds the lease), then waits to be killed.
import { ContentCache } from '../../../src/cache/content-cache.js';
import { RedisSharedTier } from '../../../src/redis.js';

const [url = '', keyPrefix = '', leaseMs = '500'] = process.argv.slice(2);
const shared = new RedisSharedTier({ url, keyPrefix, leaseMs: Number(leaseMs) });
await shared.ready();
const cache = new ContentCache({ shared });
void cache.read({ server: 's', uri: 'x://slow' }, () => {
  process.stdout.write('reading\n');
  return new Promise(() => {});
});
