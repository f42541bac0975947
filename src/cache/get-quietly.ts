import type { LRUCache } from 'lru-cache';

// lru-cache's `get(key)` allocates a default options object on every call, and writes a
// `status` field into whatever options it is given. A warm turn gets an entry per attachment
// from up to three caches: one options object for every get, with `status` cleared after each.
const options: { status?: LRUCache.Status<unknown, unknown> } = { status: undefined };

/**
 * `cache.get(key)` without allocating its options: the same recency update and freshness rules.
 * With subscribers on lru-cache's diagnostics channel, each get still gets a status of its own.
 */
export function getQuietly<Key extends {}, Value extends {}>(
  cache: LRUCache<Key, Value>,
  key: Key,
): Value | undefined {
  const value = cache.get(key, options as unknown as LRUCache.GetOptions<Key, Value, unknown>);
  options.status = undefined;
  return value;
}
