// The `mcp-resource-context/redis` entry: several host replicas share invalidations, a
// second-level content cache and read leases through Redis. Kept off the root entry so hosts
// without Redis never load `ioredis` (an optional peer).
// Any new export added here becomes public API. Use named exports, not wildcards.

export {
  RedisSharedTier,
  type RedisSharedTierEvents,
  type RedisSharedTierMetrics,
  type RedisSharedTierOptions,
} from './replicas/redis-shared-tier.js';
