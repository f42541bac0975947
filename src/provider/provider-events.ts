import type { CacheEvents } from '../cache/content-cache.js';
import type { ListingFailure } from '../cache/listing-index.js';
import type { SubscriptionFailure } from '../cache/pin-subscriptions.js';
import type { ContextBlock, InjectionTrace } from '../types.js';

export type ProviderEvents = CacheEvents & {
  /** A pinned resource could not be subscribed to; it is still re-read when its TTL runs out. */
  'subscription-failed': [failure: SubscriptionFailure];
  /**
   * A background refresh of a server's listing (for annotations) failed; turns go on with the
   * listing known before, or none.
   */
  'listing-failed': [failure: ListingFailure];
  /** Once per turn, after the context is composed: the trace, and the blocks going to the model. */
  injected: [trace: InjectionTrace, blocks: readonly ContextBlock[]];
};
