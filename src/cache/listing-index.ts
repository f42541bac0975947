import { isDeepStrictEqual } from 'node:util';
import type { Resource } from '@modelcontextprotocol/client';
import { LRUCache } from 'lru-cache';
import { ContextError } from '../errors.js';
import { cacheHintsOf } from '../mcp/cache-hints-of.js';
import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';

/** A listing refresh that failed: the last known listing (if any) stays in use. */
export interface ListingFailure {
  readonly server: string;
  readonly error: ContextError;
}

export interface ListingIndexOptions {
  /**
   * How long a listing is fresh when its result says nothing of it (2025), and how long a failed
   * refresh waits to be tried again; an older listing is still used while it is refreshed.
   */
  readonly ttlMs: number;
  /** The longest a listing's own `ttlMs` (2026-07-28) keeps it fresh (default: `ttlMs`). */
  readonly maxTtlMs?: number;
  /** Bounds one listing refresh. */
  readonly timeoutMs?: number;
  /** A background refresh failed (it never fails a turn). */
  readonly onFailure?: (failure: ListingFailure) => void;
}

interface Listing {
  /** The last listing that arrived; undefined until one has. */
  known?: ReadonlyMap<string, Resource>;
  /** Its resources as they arrived: a refresh that answers the same changes nothing. */
  listed?: readonly Resource[];
  /** When the last refresh settled (a failed one too: it is not retried before the TTL runs out). */
  at: number;
  /** How long after `at` it is fresh: its result's `ttlMs` (capped), else the `ttlMs` option. */
  freshForMs: number;
  /** `list_changed` or a closed session since `known` was listed. */
  invalidated: boolean;
  /** The one refresh in flight for this server. */
  refreshing?: Promise<void>;
  /**
   * The last listing said `cacheScope: 'private'`: each principal asks and keeps its own (see
   * #current); cleared when one says `public` again.
   */
  private?: boolean;
}

/**
 * Each server's resource listing, by URI, for what only listings carry: `annotations`
 * (priority, audience, lastModified — MCP spec 2025-06-18, "Annotations"; read results have
 * none) and `size`. A turn never waits for a listing: it asks what is known now, and a listing
 * that is missing, older than `ttlMs` or invalidated (`list_changed`, a closed session) is
 * refreshed in the background — once per server at a time, whoever asks. A refresh that fails
 * keeps the last known listing and is reported through `onFailure`, never thrown.
 */
export class ListingIndex {
  readonly #servers: McpServerRegistry;
  readonly #options: ListingIndexOptions;
  readonly #listings = new Map<string, Listing>();
  /**
   * Per principal, the listings of servers whose listing said it is private: bounded, as a
   * service sees principals without end (one pushed out is listed again by its next turn).
   */
  readonly #principalListings = new LRUCache<string, Listing>({ max: maxPrincipalListings });
  readonly #detach: () => void;
  #disposed = false;
  #generation = 0;

  constructor(servers: McpServerRegistry, options: ListingIndexOptions) {
    this.#servers = servers;
    this.#options = options;
    const invalidate = (event: { server: string }) => {
      const listing = this.#listings.get(event.server);
      if (listing) {
        listing.invalidated = true;
        this.#generation++;
      }
      for (const [key, own] of this.#principalListings.entries())
        if (key.startsWith(`${event.server}${separator}`)) own.invalidated = true;
    };
    servers.on('resources-list-changed', invalidate);
    servers.on('session-closed', invalidate);
    this.#detach = () => {
      servers.off('resources-list-changed', invalidate);
      servers.off('session-closed', invalidate);
    };
  }

  /**
   * The listing's entry for a resource as known now (annotations, size), or undefined; starts a
   * background refresh on behalf of `actor` when the listing is missing, stale or invalidated.
   * The caller must be allowed to list the server: this is a `resources/list` on its behalf.
   */
  known(
    server: string,
    uri: string,
    actor: { pipelineId: string; agentId?: string },
    principal?: string,
  ): Resource | undefined {
    return this.#current(server, actor, principal).known?.get(uri);
  }

  /**
   * Starts the background refresh that `known` would start for `server`, without a lookup: a
   * kept turn asks this of each server it consulted, so listings age and refresh as they do on
   * every turn.
   */
  keepFresh(server: string, actor: { pipelineId: string; agentId?: string }, principal?: string): void {
    this.#current(server, actor, principal);
  }

  /**
   * Changes whenever some listing's answers may have changed (a refresh arrived, a listing was
   * invalidated): what was learned from `known` holds while it stays the same.
   */
  get generation(): number {
    return this.#generation;
  }

  /** Resolves when every refresh started so far has settled. */
  async settled(): Promise<void> {
    const listings = [...this.#listings.values(), ...this.#principalListings.values()];
    await Promise.all(listings.map((listing) => listing.refreshing));
  }

  dispose(): void {
    this.#disposed = true;
    this.#detach();
    this.#listings.clear();
    this.#principalListings.clear();
  }

  // --- Internal helpers ---

  /**
   * The server's listing for this turn: the shared one, or — once a listing said it is private
   * (2026-07-28 `cacheScope`) — the principal's own (turns without one share one), never another
   * principal's. Refreshed in the background when missing, stale or invalidated.
   */
  #current(
    server: string,
    actor: { pipelineId: string; agentId?: string },
    principal: string | undefined,
  ): Listing {
    const shared = this.#listingOf(server);
    const listing = shared.private ? this.#principalListingOf(server, principal) : shared;
    if (!listing.refreshing && (listing.invalidated || Date.now() - listing.at >= listing.freshForMs)) {
      listing.refreshing = this.#refresh(server, listing, actor, principal);
    }
    return listing;
  }

  #listingOf(key: string): Listing {
    let listing = this.#listings.get(key);
    if (!listing) {
      listing = { at: Number.NEGATIVE_INFINITY, freshForMs: this.#options.ttlMs, invalidated: false };
      this.#listings.set(key, listing);
    }
    return listing;
  }

  async #refresh(
    server: string,
    listing: Listing,
    actor: { pipelineId: string; agentId?: string },
    principal: string | undefined,
  ): Promise<void> {
    // A change announced while this refresh runs may not be in its answer: it stays invalidated.
    listing.invalidated = false;
    // A failed refresh is tried again after the `ttlMs` option, whatever the listing allowed.
    listing.freshForMs = this.#options.ttlMs;
    try {
      const result = await this.#servers.listResources(server, {
        all: true,
        actor,
        ...(this.#options.timeoutMs !== undefined && { timeoutMs: this.#options.timeoutMs }),
      });
      const hints = cacheHintsOf(result);
      const kept = this.#keptAs(server, listing, principal, hints?.cacheScope === 'private');
      if (hints) kept.freshForMs = Math.min(hints.ttlMs, this.#options.maxTtlMs ?? this.#options.ttlMs);
      kept.at = Date.now();
      // A listing fresh for no time is asked for by every turn: the same answer again is no change
      // (kept turns and what turns learned from it stand).
      if (!kept.listed || !isDeepStrictEqual(kept.listed, result.resources)) {
        kept.listed = result.resources;
        kept.known = new Map(result.resources.map((resource) => [resource.uri, resource]));
        this.#generation++;
      }
    } catch (thrown) {
      const error = ContextError.isInstance(thrown)
        ? thrown
        : new ContextError(
            'INTERNAL_ERROR',
            `listing server "${server}": ${String(thrown)}`,
            { server },
            thrown,
          );
      if (!this.#disposed) this.#options.onFailure?.({ server, error });
    } finally {
      listing.at = Math.max(listing.at, Date.now());
      listing.refreshing = undefined;
    }
  }

  /**
   * Where an answer asked for `principal` is kept: where it was asked, unless its scope moved the
   * server's listings between shared and per-principal. Private now: the shared listing is
   * emptied and the answer is the principal's own. Public again: the principals' listings go and
   * the answer is everyone's.
   */
  #keptAs(server: string, asked: Listing, principal: string | undefined, isPrivate: boolean): Listing {
    const shared = this.#listingOf(server);
    if (isPrivate === (shared.private === true)) return asked;
    for (const key of [...this.#principalListings.keys()])
      if (key.startsWith(`${server}${separator}`)) this.#principalListings.delete(key);
    this.#generation++;
    if (!isPrivate) {
      shared.private = false;
      return shared;
    }
    shared.private = true;
    shared.known = undefined;
    shared.listed = undefined;
    return this.#principalListingOf(server, principal);
  }

  #principalListingOf(server: string, principal: string | undefined): Listing {
    const key = `${server}${separator}${principal ?? ''}`;
    let listing = this.#principalListings.get(key);
    if (!listing) {
      listing = { at: Number.NEGATIVE_INFINITY, freshForMs: this.#options.ttlMs, invalidated: false };
      this.#principalListings.set(key, listing);
    }
    return listing;
  }
}

// Principals whose private listings are kept (per server); past it the least recently used go.
const maxPrincipalListings = 1_000;

// Between a server's name and a principal in a per-principal listing's key.
const separator = '\u0000';
