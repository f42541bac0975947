/**
 * What a result says of its own caching (MCP 2026-07-28, server/utilities/caching): how long it
 * stays fresh, and whether a cache shared by several users may keep it. `undefined` for a result
 * that says nothing (a 2025 server's): the host's own TTL applies to it.
 */
export interface CacheHints {
  /** Freshness the server allows, in ms; 0 when absent or not a whole number ≥ 0. */
  readonly ttlMs: number;
  /** `private`: never served to another authorization context; also when absent or unknown. */
  readonly cacheScope: 'public' | 'private';
}

/**
 * The hints of a result, read as untrusted input: a result that carries either field is hinted,
 * and then every field it lacks or gives wrongly takes the spec's conservative value (an absent
 * `ttlMs` is 0; anything but `public` is `private`), never the host's longer default.
 */
export function cacheHintsOf(result: object): CacheHints | undefined {
  if (!('ttlMs' in result) && !('cacheScope' in result)) return undefined;
  const { ttlMs, cacheScope } = result as { ttlMs?: unknown; cacheScope?: unknown };
  return {
    ttlMs: typeof ttlMs === 'number' && Number.isSafeInteger(ttlMs) && ttlMs >= 0 ? ttlMs : 0,
    cacheScope: cacheScope === 'public' ? 'public' : 'private',
  };
}

/**
 * What a listing of several pages may be cached as: for the shortest time any page allows, and
 * private when any page is. Unhinted pages (2025) leave the others' hints as they are.
 */
export function narrowestHints(
  one: CacheHints | undefined,
  other: CacheHints | undefined,
): CacheHints | undefined {
  if (!one || !other) return one ?? other;
  return {
    ttlMs: Math.min(one.ttlMs, other.ttlMs),
    cacheScope: one.cacheScope === 'private' || other.cacheScope === 'private' ? 'private' : 'public',
  };
}
