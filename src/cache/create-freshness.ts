import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import { type CacheEvents, ContentCache, type ContentCacheOptions } from './content-cache.js';
import { DerivedCache } from './derived-cache.js';
import { invalidateOnNotifications } from './invalidate-on-notifications.js';
import { type ListingFailure, ListingIndex } from './listing-index.js';
import { PinSubscriptions, type SubscriptionFailure } from './pin-subscriptions.js';

/** Bounds one background listing refresh (no turn waits for it). */
const listingTimeoutMs = 10_000;

/** What keeps a provider's context fresh and cheap: its caches and its pins' subscriptions. */
export interface Freshness {
  readonly cache: ContentCache;
  /** Conversions and token counts of unchanged content: what makes a warm turn cheap. */
  readonly derived: DerivedCache;
  readonly subscriptions: PinSubscriptions;
  /** Listings, for the annotations only they carry (priority ranks equal attachments). */
  readonly listings: ListingIndex;
  /**
   * Sessions opened so far (any server, any principal): a server's `initialize` instructions can
   * only change with a new session, so a turn that injected them holds while this stands.
   */
  sessionsOpened(): number;
  /** Unwires everything this set up (a shared ContentCache itself stays usable). */
  dispose(): void;
}

type FreshnessEvents = CacheEvents & {
  'subscription-failed': [failure: SubscriptionFailure];
  'listing-failed': [failure: ListingFailure];
};

/**
 * A content cache (the given one, or a new one from options), invalidated by the registry's
 * notifications; a derived cache; and subscriptions for pins. Their events go to `emit`.
 */
export function createFreshness(
  servers: McpServerRegistry,
  option: ContentCache | ContentCacheOptions | undefined,
  emit: <Name extends keyof FreshnessEvents>(name: Name, ...payload: FreshnessEvents[Name]) => void,
): Freshness {
  const owned = !(option instanceof ContentCache);
  const cache = option instanceof ContentCache ? option : new ContentCache(option);
  const subscriptions = new PinSubscriptions(servers, (failure) => emit('subscription-failed', failure));
  const onInvalidated = (event: CacheEvents['cache-invalidated'][0]) => emit('cache-invalidated', event);
  const onRead = (event: CacheEvents['resource-read'][0]) => emit('resource-read', event);
  cache.on('cache-invalidated', onInvalidated);
  cache.on('resource-read', onRead);
  const unwire = invalidateOnNotifications(servers, cache);
  let sessionsOpened = 0;
  const onOpened = () => {
    sessionsOpened++;
  };
  servers.on('session-opened', onOpened);
  const listings = new ListingIndex(servers, {
    ttlMs: cache.ttlMs,
    maxTtlMs: cache.maxTtlMs,
    timeoutMs: listingTimeoutMs,
    onFailure: (failure) => emit('listing-failed', failure),
  });
  return {
    cache,
    derived: new DerivedCache({ maxBytes: cache.derivedMaxBytes }),
    subscriptions,
    listings,
    sessionsOpened: () => sessionsOpened,
    dispose: () => {
      unwire();
      servers.off('session-opened', onOpened);
      listings.dispose();
      subscriptions.dispose();
      cache.off('cache-invalidated', onInvalidated);
      cache.off('resource-read', onRead);
      if (owned) cache.dispose();
    },
  };
}
