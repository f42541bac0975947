import type { ReadResourceResult } from '@modelcontextprotocol/client';
import type { SharedCacheStatus } from '../types.js';

export type { SharedCacheStatus };

/**
 * What a ContentCache asks of the fleet it runs in (several host replicas): a second-level
 * cache, a lease per key so one replica reads while the others wait, and an invalidation bus.
 * The cache knows only this interface; `mcp-resource-context/redis` implements it.
 * Every method settles: a tier that cannot reach its store answers `alone` or does nothing.
 */
export interface SharedTier {
  /**
   * The shared copy of a key, or the lease to read it (`lead`: read, then `fill` or `release`),
   * or `alone`: read without the fleet (the tier is unavailable, or another replica's read did
   * not land within the wait). Never rejects and never waits past its own bound.
   */
  lookup(key: SharedKey): Promise<SharedLookup>;
  /** Tells the other replicas (and the shared copies) what this replica heard. Never throws. */
  publish(invalidation: Invalidation): void;
  /** What other replicas heard, and `all-stale` when messages may have been missed. */
  onInvalidation(listener: (invalidation: Invalidation) => void): () => void;
}

export interface SharedKey {
  /**
   * The server's identity (`McpServerRegistry.identityOf`: a hash of its name, endpoint and
   * credentials, the same on replicas configured alike), or its name where the cache was read
   * without one. Replicas whose servers differ under one name never meet at one key.
   */
  readonly server: string;
  readonly uri: string;
  /** Per-user servers: the principal whose credentials read it; the shared copy is theirs alone. */
  readonly principal?: string;
}

/** Content as the cache keeps it: the result, its hash and size, when the server answered. */
export interface SharedContent {
  readonly result: ReadResourceResult;
  readonly sha256: string;
  readonly bytes: number;
  readonly fetchedAt: number;
}

export type SharedLookup =
  /**
   * A copy this replica may serve: one that parsed, matched its sha256, is within the tier's
   * TTL by this replica's clock and is no older than the last invalidation heard. Its
   * `fetchedAt` is on this replica's clock (never later than the read), so the local TTL counts
   * from it.
   */
  | { readonly kind: 'hit'; readonly content: SharedContent }
  | {
      readonly kind: 'lead';
      /** Stores the read for the fleet (unless an invalidation came first) and frees the lease. */
      fill(content: SharedContent): Promise<void>;
      /** Frees the lease without storing (the read failed or was invalidated). */
      release(): void;
    }
  | { readonly kind: 'alone'; readonly reason: 'unavailable' | 'wait-timeout' };

/** `server`: the identity (or name) as in SharedKey; an invalidation reaches that server's copies only. */
export type Invalidation =
  | { readonly kind: 'updated'; readonly server: string; readonly uri: string }
  | { readonly kind: 'list-changed'; readonly server: string }
  | { readonly kind: 'session-closed'; readonly server: string }
  /** The tier lost its connection: messages may have been missed, nothing local is fresh. */
  | { readonly kind: 'all-stale'; readonly reason: string };
