// The `mcp-resource-context/cache` entry: a content cache shared by several providers (see docs/provider.md for what it may be shared between), notifications wired to a cache, and the SharedTier interface the Redis tier implements.
// Any new export added here becomes public API. Use named exports, not wildcards.

export {
  type CachedContent,
  type CacheEvents,
  type CacheMetrics,
  type CacheRead,
  ContentCache,
  type ContentCacheOptions,
  type ReadRequest,
} from './cache/content-cache.js';
export { invalidateOnNotifications } from './cache/invalidate-on-notifications.js';
export type {
  Invalidation,
  SharedContent,
  SharedKey,
  SharedLookup,
  SharedTier,
} from './cache/shared-tier.js';
