import type { Invalidation, SharedContent, SharedLookup, SharedTier } from '../../src/cache/shared-tier.js';

/**
 * A shared tier the test scripts: each lookup answers what `next` says (default `alone`), and
 * everything asked of it is recorded.
 */
export function scriptedTier() {
  const calls: string[] = [];
  const published: Invalidation[] = [];
  const filled: SharedContent[] = [];
  const listeners = new Set<(invalidation: Invalidation) => void>();
  let next: () => SharedLookup = () => ({ kind: 'alone', reason: 'unavailable' });
  const tier: SharedTier = {
    lookup: async (key) => {
      calls.push(`lookup ${key.server} ${key.uri} ${key.principal ?? '-'}`);
      return next();
    },
    publish: (invalidation) => published.push(invalidation),
    onInvalidation: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  const lead = (): SharedLookup => ({
    kind: 'lead',
    fill: async (content) => {
      calls.push('fill');
      filled.push(content);
    },
    release: () => calls.push('release'),
  });
  return {
    tier,
    calls,
    published,
    filled,
    listeners,
    lead,
    answer: (lookup: () => SharedLookup) => {
      next = lookup;
    },
    hear: (invalidation: Invalidation) => {
      for (const listener of listeners) listener(invalidation);
    },
  };
}
