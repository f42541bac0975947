import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { EventEmitter } from 'eventemitter3';
import { z } from 'zod';
import { cacheHintsOf } from '../mcp/cache-hints-of.js';
import { raceAbort } from '../mcp/race-abort.js';
import type { AnsweredRead } from '../mcp/read-answering-input.js';
import { parseOptions } from '../options/parse-options.js';
import type { CacheStatus } from '../types.js';
import { measureContents } from './measure-contents.js';
import { SegmentedLru } from './segmented-lru.js';
import type { Invalidation, SharedCacheStatus, SharedTier } from './shared-tier.js';

/** The content cache's options; the provider's `cache` and the config file's take the same. */
export const cacheOptionsSchema = z.strictObject({
  /** Bytes of content held at most (default 32 MiB). */
  maxBytes: z
    .number()
    .int()
    .positive()
    .default(32 * 1024 * 1024),
  /**
   * Bytes of what turns derive from the content held at most: conversions, token arrays,
   * renderings (default `derivedBytesPerContentByte`, 1.5 × maxBytes; about 2.5 × keeps what a
   * full content cache derives, so that a warm turn converts and counts nothing again however
   * many pins).
   */
  derivedMaxBytes: z.number().int().positive().optional(),
  /**
   * Bytes of `maxBytes` set apart for reads on probation (a message attachment, likely read once):
   * they wait there until read again, and never push out what the main LRU holds (pins, content
   * read twice). Default an eighth of maxBytes; 0 turns admission off (every read enters the main
   * LRU); at most half of maxBytes.
   */
  probationMaxBytes: z.number().int().nonnegative().optional(),
  /**
   * How long a read stays fresh when its result says nothing of it (a 2025 server's; default 5
   * minutes). A 2026-07-28 result's own `ttlMs` sets its freshness instead, up to `maxTtlMs`.
   */
  ttlMs: z
    .number()
    .int()
    .nonnegative()
    .default(5 * 60_000),
  /** The longest a result's own `ttlMs` keeps it fresh (default: `ttlMs`, so hints only shorten it). */
  maxTtlMs: z.number().int().nonnegative().optional(),
  /** How old a copy may be and still be served when a fresh read fails (default 1 hour). */
  maxStaleMs: z
    .number()
    .int()
    .nonnegative()
    .default(60 * 60_000),
  /**
   * The fleet's second-level cache, read leases and invalidation bus (several host replicas),
   * e.g. `createRedisSharedTier(...)` from `mcp-resource-context/redis`.
   */
  shared: z
    .custom<SharedTier>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        ['lookup', 'publish', 'onInvalidation'].every(
          (name) => typeof (value as Record<string, unknown>)[name] === 'function',
        ),
      { message: 'shared must be a SharedTier (lookup, publish, onInvalidation)' },
    )
    .optional(),
});

export type ContentCacheOptions = z.input<typeof cacheOptionsSchema>;

// What a constructor accepts beyond the schema (a config file's `cache` takes the schema alone).
const contentCacheOptionsSchema = cacheOptionsSchema.refine(
  (options) => options.probationMaxBytes === undefined || options.probationMaxBytes <= options.maxBytes / 2,
  { message: 'probationMaxBytes may be at most half of maxBytes', path: ['probationMaxBytes'] },
);

export interface CachedContent {
  readonly result: ReadResourceResult;
  readonly sha256: string;
  readonly bytes: number;
  /** When the server answered (epoch ms). */
  readonly fetchedAt: number;
}

export interface CacheRead {
  readonly content: CachedContent;
  readonly cache: CacheStatus;
  /** Set with `cache: 'stale'`: why the fresh read failed. */
  readonly error?: unknown;
  /** With a shared tier, on a local miss: whether the fleet's copy served it, or why it could not. */
  readonly shared?: SharedCacheStatus;
}

export interface ReadRequest {
  /** The server's configured name (what events and traces name). */
  readonly server: string;
  /**
   * Which server that name stands for (`McpServerRegistry.identityOf`): part of the key, so a
   * server of the same name in another registry — another tenant's — never shares content with
   * this one, while registries and replicas configured alike do. Without it, the name alone
   * (for a cache used by one registry only).
   */
  readonly identity?: string;
  readonly uri: string;
  /** Whose credentials read it, where they differ per user; part of the key. */
  readonly principal?: string;
  /**
   * The user the read is for, on a server whose credentials all users share (no `principal`):
   * a result the server marks `cacheScope: 'private'` is kept for this user alone, and never
   * answers another's read, not even one waiting on the same flight. Reads without one share
   * one anonymous partition (one authorization context: the host's).
   */
  readonly privateTo?: string;
  /** Skip the cache for this read (the result still refreshes it). */
  readonly bypass?: boolean;
  /**
   * Likely read once (a message attachment): kept on probation, in a segment of its own, until a
   * later read of its key finds it there and moves it to the main LRU. Without it, the read
   * enters the main LRU at once (a pin's).
   */
  readonly probation?: boolean;
  /** This caller's signal; the shared read itself is not cancelled when one caller gives up. */
  readonly signal?: AbortSignal;
}

export interface CacheMetrics {
  readonly hits: number;
  readonly misses: number;
  readonly bypasses: number;
  readonly staleServes: number;
  readonly evictions: number;
  readonly invalidations: number;
  readonly entries: number;
  readonly bytesHeld: number;
  readonly readsInFlight: number;
  /** Reads too large to keep (above a quarter of maxBytes; on probation, above probationMaxBytes). */
  readonly tooLargeToCache: number;
  /** Of `bytesHeld`, what reads on probation hold (at most `probationMaxBytes`). */
  readonly probationBytesHeld: number;
  /** Copies moved from probation to the main LRU: read again while on probation, or soon after. */
  readonly promotions: number;
}

export type CacheEvents = {
  'cache-invalidated': [event: { server: string; uri?: string; reason: string; entries: number }];
  'resource-read': [event: { server: string; uri: string; bytes: number; durationMs: number }];
};

interface Entry extends CachedContent {
  readonly server: string;
  /** The request's identity, or its server's name without one: the key's first part. */
  readonly space: string;
  /** How long after `fetchedAt` it is fresh: its result's `ttlMs` (capped), else the cache's `ttlMs`. */
  readonly freshForMs: number;
  /** Set when the session that produced it closed: not served fresh, still usable on error. */
  staleSince?: number;
  /** What a hit on it answers: one object per entry, not one per turn. */
  hit?: CacheRead;
  /** Evicted, deleted or replaced: no longer what a read of its key answers. */
  retired?: true;
}

/** What a read's result allows: fresh for how long, whose alone, whether it may be kept at all. */
interface Freshness {
  readonly freshForMs: number;
  readonly private: boolean;
  readonly storable: boolean;
}

interface Flight {
  readonly space: string;
  /** The user whose read started it (see ReadRequest.privateTo). */
  readonly privateTo: string | undefined;
  readonly promise: Promise<{ content: CachedContent; shared?: SharedCacheStatus; private: boolean }>;
  /** False once an invalidation lands during the read: its result must not be stored. */
  storable: boolean;
}

/**
 * The derived cache's bound per byte of content (docs/caches.md, "The derived cache"): what is
 * derived may take half as much again as the content it derives from. Holding everything derived
 * from a full content cache would take about 2.5× (conversions and token arrays about 1× each,
 * by what V8 holds); at 1.5× the least recently used bodies' derived forms go first, and are
 * derived again if a turn asks for them (a library in someone else's process, issue 38.3).
 */
export const derivedBytesPerContentByte = 1.5;

// An entry may take a quarter of the cache: one huge resource cannot flush everything else.
const entryShare = 4;
// Keys, URIs and bookkeeping cost memory beyond the content bytes.
const entryOverheadBytes = 512;
// The default probation segment: an eighth of maxBytes.
const probationShare = 8;

/**
 * Resource contents by (server identity, uri, principal): fresh for `ttlMs`, bounded by bytes, one read
 * in flight per key however many turns ask (single-flight), dropped the moment the server says
 * the resource or its list changed.
 *
 * Invalidation during an in-flight read uses a flag on the flight instead of deleting it from
 * an lru-cache `fetch()` (which would reject every waiter): turns already waiting get the
 * result they asked for, later turns start a new read, and the old result is never stored.
 *
 * Admission (see docs/caches.md): a read made with `probation` (a message attachment) is kept in
 * a probation LRU of `probationMaxBytes`, apart from the main LRU of the rest of maxBytes. A hit
 * there moves it to the main LRU; pushed out of probation unread, only its key is remembered
 * (see SegmentedLru), and a read of a remembered key enters the main LRU. So a stream of one-off
 * attachments churns through probation alone, and never evicts a pin or content read twice.
 */
export class ContentCache extends EventEmitter<CacheEvents> {
  readonly #options: z.output<typeof cacheOptionsSchema>;
  /** The main LRU (pins, and whatever was read again) and the probation segment in front of it. */
  readonly #entries: SegmentedLru<Entry>;
  /** Keys by their server's identity (or name), and each server name's identities. */
  readonly #keysBySpace = new Map<string, Set<string>>();
  readonly #spacesByServer = new Map<string, Set<string>>();
  readonly #flights = new Map<string, Flight>();
  readonly #unsubscribe: (() => void) | undefined;
  #retirements = 0;
  #metrics = {
    hits: 0,
    misses: 0,
    bypasses: 0,
    staleServes: 0,
    evictions: 0,
    invalidations: 0,
    tooLargeToCache: 0,
  };

  constructor(options: ContentCacheOptions = {}) {
    super();
    this.#options = parseOptions(contentCacheOptionsSchema, options, 'cache');
    this.#entries = new SegmentedLru<Entry>({
      // No maxEntrySize: #store refuses an entry above its share first, and counts it.
      maxSize: this.#options.maxBytes,
      probationMaxSize: this.probationMaxBytes,
      sizeCalculation: (entry) => entry.bytes + entryOverheadBytes,
      dispose: (entry, key, reason) => {
        entry.retired = true;
        this.#retirements++;
        if (reason === 'evict') this.#metrics.evictions++;
        if (reason !== 'set') this.#keysBySpace.get(entry.space)?.delete(key);
      },
    });
    // What other replicas heard is applied here without being published again.
    this.#unsubscribe = this.#options.shared?.onInvalidation((invalidation) =>
      this.#apply(invalidation, 'from another replica'),
    );
  }

  /**
   * The content of one resource: from the cache when fresh, else from `read` (shared with every
   * concurrent caller of the same key). When `read` fails and a copy younger than `maxStaleMs`
   * exists, that copy is returned as `stale` with the error; otherwise the error is thrown.
   */
  read(request: ReadRequest, read: () => Promise<ReadResourceResult>): Promise<CacheRead> {
    const hit = this.peek(request);
    if (hit) return Promise.resolve(hit);
    return this.#readAnew(cacheKey(request), request, read);
  }

  /**
   * A hit, answered at once: the fresh copy of one resource (counted as a hit), or undefined
   * when `read` would go to the server (a miss, a stale copy, a bypass).
   */
  peek(request: ReadRequest): CacheRead | undefined {
    if (request.bypass) return undefined;
    const cached = this.#freshAt(cacheKey(request)) ?? this.#freshAt(privateKeyOf(request));
    if (!cached) return undefined;
    this.#metrics.hits++;
    cached.hit ??= { content: cached, cache: 'hit' };
    return cached.hit;
  }

  /**
   * Whether every one of `contents` (as answered by earlier peeks) is still what a peek of its key
   * would answer now: held, not invalidated, within its TTL. A kept turn's check, without lookups.
   */
  stillFresh(contents: readonly CachedContent[]): boolean {
    const now = Date.now();
    for (const content of contents) {
      const entry = content as Entry;
      if (entry.retired || !this.#isFresh(entry, now)) return false;
    }
    return true;
  }

  /**
   * How many entries were retired (evicted, deleted, replaced) or marked stale so far: while it
   * stays the same, every entry a peek answered is still held and not invalidated.
   */
  get retirements(): number {
    return this.#retirements;
  }

  /** Counts `count` hits answered without peeks (a kept turn's, one per attachment it answers). */
  countHits(count: number): void {
    this.#metrics.hits += count;
  }

  async #readAnew(
    key: string,
    request: ReadRequest,
    read: () => Promise<ReadResourceResult>,
  ): Promise<CacheRead> {
    if (request.bypass) this.#metrics.bypasses++;
    else this.#metrics.misses++;
    const flight = (!request.bypass && this.#flights.get(key)) || this.#startFlight(key, request, read);
    try {
      const outcome = await raceAbort(flight.promise, request.signal);
      const ownKey = privateKeyOf(request);
      // Another user's private answer (cacheScope 'private'): this user's read is its own.
      if (outcome.private && ownKey !== undefined && ownKey !== key && flight.privateTo !== request.privateTo)
        return this.#readAnew(ownKey, request, read);
      const { content, shared } = outcome;
      return { content, cache: request.bypass ? 'bypass' : 'miss', ...(shared && { shared }) };
    } catch (error) {
      const privateKey = privateKeyOf(request);
      const fallback =
        this.#entries.get(key) ?? (privateKey === undefined ? undefined : this.#entries.get(privateKey));
      if (request.signal?.aborted || !fallback || Date.now() - fallback.fetchedAt > this.#options.maxStaleMs)
        throw error;
      this.#metrics.staleServes++;
      return { content: fallback, cache: 'stale', error };
    }
  }

  /**
   * `notifications/resources/updated`: this URI changed (told to the other replicas too). With
   * `identity`, only that server's copies (and those read without one) are dropped, not those of
   * another registry's server of the same name; without it, every server of that name's.
   */
  invalidateResource(server: string, uri: string, identity?: string): void {
    this.#options.shared?.publish({ kind: 'updated', server: identity ?? server, uri });
    this.#dropResource(server, this.#spacesOf(server, identity), uri, 'resource updated');
  }

  /** `notifications/resources/list_changed`: anything of this server may have changed (`identity` as above). */
  invalidateServer(server: string, identity?: string): void {
    this.#options.shared?.publish({ kind: 'list-changed', server: identity ?? server });
    this.#dropServer(server, this.#spacesOf(server, identity), 'resource list changed');
  }

  /**
   * The server's session closed: its notifications may have been missed, so nothing of it is
   * served fresh again, but the copies stay for stale-on-error (`identity` as above).
   */
  markServerStale(server: string, identity?: string): void {
    this.#options.shared?.publish({ kind: 'session-closed', server: identity ?? server });
    this.#markStale(server, this.#spacesOf(server, identity), 'session closed');
  }

  /** Nothing held is served fresh again (e.g. invalidations may have been missed); copies stay for stale-on-error. */
  markAllStale(reason: string): void {
    for (const [server, spaces] of this.#spacesByServer) this.#markStale(server, [...spaces], reason);
  }

  /** Stops listening to the shared tier's invalidations (the entries stay). */
  dispose(): void {
    this.#unsubscribe?.();
  }

  /**
   * What another replica heard names its server by identity (or, from a cache used without
   * identities, by name): the copies of that identity, or of every identity of that name.
   */
  #apply(invalidation: Invalidation, origin: string): void {
    if (invalidation.kind === 'all-stale') {
      this.markAllStale(invalidation.reason);
      return;
    }
    const named = invalidation.server;
    const spaces = new Set([named, ...(this.#spacesByServer.get(named) ?? [])]);
    const server = this.#serverOf(named);
    if (invalidation.kind === 'updated') {
      this.#dropResource(server, [...spaces], invalidation.uri, `resource updated (${origin})`);
    } else if (invalidation.kind === 'list-changed') {
      this.#dropServer(server, [...spaces], `resource list changed (${origin})`);
    } else {
      this.#markStale(server, [...spaces], `session closed (${origin})`);
    }
  }

  /**
   * The key spaces an invalidation of `server` reaches: with its identity, that identity's and
   * those of reads made without one (keyed by the name); without, all of the name's.
   */
  #spacesOf(server: string, identity: string | undefined): string[] {
    if (identity !== undefined) return [identity, server];
    return [...(this.#spacesByServer.get(server) ?? [])];
  }

  /** The name a key space's reads gave (a space is an identity or a name). */
  #serverOf(space: string): string {
    for (const [server, spaces] of this.#spacesByServer) if (spaces.has(space)) return server;
    return space;
  }

  #dropResource(server: string, spaces: readonly string[], uri: string, reason: string): void {
    let entries = 0;
    for (const [key, flight] of this.#flights) {
      if (spaces.includes(flight.space) && keyUri(key) === uri) {
        flight.storable = false;
        this.#flights.delete(key);
      }
    }
    for (const space of spaces) {
      for (const key of [...(this.#keysBySpace.get(space) ?? [])]) {
        if (keyUri(key) === uri && this.#entries.delete(key)) entries++;
      }
    }
    this.#recordInvalidation({ server, uri, reason, entries });
  }

  #dropServer(server: string, spaces: readonly string[], reason: string): void {
    let entries = 0;
    for (const [key, flight] of this.#flights) {
      if (spaces.includes(flight.space)) {
        flight.storable = false;
        this.#flights.delete(key);
      }
    }
    for (const space of spaces) {
      for (const key of [...(this.#keysBySpace.get(space) ?? [])]) {
        if (this.#entries.delete(key)) entries++;
      }
    }
    this.#recordInvalidation({ server, reason, entries });
  }

  #markStale(server: string, spaces: readonly string[], reason: string): void {
    const now = Date.now();
    let entries = 0;
    for (const key of spaces.flatMap((space) => [...(this.#keysBySpace.get(space) ?? [])])) {
      // peek, not get: marking a copy stale is not a use of it (the eviction order stays).
      const entry = this.#entries.peek(key);
      if (entry && entry.staleSince === undefined) {
        entry.staleSince = now;
        this.#retirements++;
        entries++;
      }
    }
    this.#recordInvalidation({ server, reason, entries });
  }

  /** How long a read stays fresh when its result says nothing of it. */
  get ttlMs(): number {
    return this.#options.ttlMs;
  }

  /** The longest a result's own `ttlMs` keeps it fresh. */
  get maxTtlMs(): number {
    return this.#options.maxTtlMs ?? this.#options.ttlMs;
  }

  /** When a copy a peek answered stops being fresh (epoch ms): by its result's hint or the TTL. */
  freshUntil(content: CachedContent): number {
    const freshForMs = (content as Partial<Entry>).freshForMs ?? this.#freshnessOf(content.result).freshForMs;
    return content.fetchedAt + freshForMs;
  }

  /** Of maxBytes, the bytes set apart for reads on probation (0: admission is off). */
  get probationMaxBytes(): number {
    return this.#options.probationMaxBytes ?? Math.floor(this.#options.maxBytes / probationShare);
  }

  /** The bound for what turns derive from this cache's content (the derived cache's size). */
  get derivedMaxBytes(): number {
    return this.#options.derivedMaxBytes ?? Math.floor(derivedBytesPerContentByte * this.#options.maxBytes);
  }

  get metrics(): CacheMetrics {
    return {
      ...this.#metrics,
      entries: this.#entries.size,
      bytesHeld: this.#entries.calculatedSize,
      readsInFlight: this.#flights.size,
      probationBytesHeld: this.#entries.probationSize,
      promotions: this.#entries.promotions,
    };
  }

  clear(): void {
    this.#entries.clear();
    for (const flight of this.#flights.values()) flight.storable = false;
    this.#flights.clear();
  }

  // --- Internal helpers ---

  #isFresh(entry: Entry, now = Date.now()): boolean {
    return entry.staleSince === undefined && now - entry.fetchedAt < entry.freshForMs;
  }

  #freshAt(key: string | undefined): Entry | undefined {
    if (key === undefined) return undefined;
    const cached = this.#entries.get(key);
    return cached && this.#isFresh(cached) ? cached : undefined;
  }

  /**
   * What a result's hints make of it here (MCP 2026-07-28 caching): fresh for its own `ttlMs`
   * up to `maxTtlMs`, or the cache's `ttlMs` when it carries none; and whether it is private.
   */
  #freshnessOf(result: ReadResourceResult): Freshness {
    // MCP 2026-07-28 caching: "results of multi-round-trip retries are never cached". Such a
    // read carries one user's answers: not stored, not the fleet's, not another user's.
    if (((result as AnsweredRead<ReadResourceResult>).inputRounds ?? 0) > 0)
      return { freshForMs: 0, private: true, storable: false };
    const hints = cacheHintsOf(result);
    if (!hints) return { freshForMs: this.#options.ttlMs, private: false, storable: true };
    return {
      freshForMs: Math.min(hints.ttlMs, this.maxTtlMs),
      private: hints.cacheScope === 'private',
      storable: true,
    };
  }

  #startFlight(key: string, request: ReadRequest, read: () => Promise<ReadResourceResult>): Flight {
    const readFromServer = async () => {
      const started = performance.now();
      const { result, sha256, bytes } = measureContents(await read());
      const content = { result, sha256, bytes, fetchedAt: Date.now() };
      this.emit('resource-read', {
        server: request.server,
        uri: request.uri,
        bytes: content.bytes,
        durationMs: performance.now() - started,
      });
      return content;
    };
    const space = spaceOf(request);
    this.#noteSpace(request.server, space);
    const flight: Flight = {
      space,
      privateTo: request.privateTo,
      storable: true,
      promise: this.#readThroughFleet(request, readFromServer, () => flight.storable).then((outcome) => {
        const freshness = this.#freshnessOf(outcome.content.result);
        if (flight.storable && freshness.storable)
          this.#store(key, request, space, outcome.content, freshness);
        return { ...outcome, private: freshness.private };
      }),
    };
    this.#flights.set(key, flight);
    // Settled either way, a flight is over; only the flight that is still current is removed.
    const land = () => {
      if (this.#flights.get(key) === flight) this.#flights.delete(key);
    };
    flight.promise.then(land, land);
    return flight;
  }

  /**
   * Without a shared tier (or when bypassing it): the server. With one: the fleet's copy, or
   * this replica's read under the fleet's lease (stored for the others unless invalidated
   * meanwhile), or a read of its own when the fleet is unavailable or slow.
   */
  async #readThroughFleet(
    request: ReadRequest,
    readFromServer: () => Promise<CachedContent>,
    storable: () => boolean,
  ): Promise<{ content: CachedContent; shared?: SharedCacheStatus }> {
    const shared = this.#options.shared;
    if (!shared || request.bypass) return { content: await readFromServer() };
    // The fleet keys by identity too: replicas configured alike share, other tenants never do.
    const lookup = await shared.lookup({
      server: spaceOf(request),
      uri: request.uri,
      ...(request.principal !== undefined && { principal: request.principal }),
    });
    if (lookup.kind === 'hit') {
      // The fleet's copy is another process's bytes: served only while its own hints allow it.
      if (this.#shareable(lookup.content, Date.now())) return { content: lookup.content, shared: 'hit' };
      return { content: await readFromServer(), shared: 'miss' };
    }
    if (lookup.kind === 'alone') return { content: await readFromServer(), shared: lookup.reason };
    let content: CachedContent;
    try {
      content = await readFromServer();
    } catch (error) {
      lookup.release();
      throw error;
    }
    // A private result, or one fresh for no time, is never the fleet's.
    if (storable() && this.#shareable(content, content.fetchedAt)) await lookup.fill(content);
    else lookup.release();
    return { content, shared: 'miss' };
  }

  /** Whether a copy may be (or be served from) the fleet's at `now`: public, or unhinted, and fresh. */
  #shareable(content: CachedContent, now: number): boolean {
    const { freshForMs, private: isPrivate, storable } = this.#freshnessOf(content.result);
    return storable && !isPrivate && now - content.fetchedAt < freshForMs;
  }

  /**
   * Keeps a read: in the main LRU, or on probation when the request says so, its key is not in
   * the main LRU (a pin's copy read again as a message attachment stays there) and was not pushed
   * out of probation lately (then this is its second read: it enters the main LRU).
   */
  #store(
    key: string,
    request: ReadRequest,
    space: string,
    content: CachedContent,
    freshness: Freshness,
  ): void {
    if (content.bytes + entryOverheadBytes > this.#options.maxBytes / entryShare) {
      this.#metrics.tooLargeToCache++;
      return;
    }
    // A private result read with shared credentials is its user's alone: kept under that user's
    // key, and the shared key's older copy (which it replaces) goes.
    const privateKey = freshness.private ? privateKeyOf(request) : undefined;
    if (privateKey !== undefined && privateKey !== key) {
      this.#entries.delete(key);
      key = privateKey;
    }
    const { result, sha256, bytes, fetchedAt } = content;
    const { freshForMs } = freshness;
    const entry: Entry = { result, sha256, bytes, fetchedAt, freshForMs, server: request.server, space };
    // Too large for probation: only its key is remembered, so that a second read keeps it.
    if (this.#entries.set(key, entry, request.probation === true) === 'remembered') {
      this.#metrics.tooLargeToCache++;
      return;
    }
    let keys = this.#keysBySpace.get(space);
    if (!keys) {
      keys = new Set();
      this.#keysBySpace.set(space, keys);
    }
    keys.add(key);
  }

  /** Remembers that `server` is read under `space` (its invalidations by name reach it). */
  #noteSpace(server: string, space: string): void {
    let spaces = this.#spacesByServer.get(server);
    if (!spaces) {
      spaces = new Set();
      this.#spacesByServer.set(server, spaces);
    }
    spaces.add(space);
  }

  #recordInvalidation(event: { server: string; uri?: string; reason: string; entries: number }): void {
    this.#metrics.invalidations++;
    this.emit('cache-invalidated', event);
  }
}

// --- Module helpers ---

const separator = '\u0000';

// Built for each call: a key kept per request object would be one more string and weak-map entry
// for every pin of every conversation, held as long as the pin (with the peek's request: 1.1 KiB a
// conversation of 5 pins, heap growth 6,140 -> 4,989 bytes, docs/reuse.md) to save a join and its
// hash on a peek. The LRU keeps the copy it stores (see SegmentedLru.set).
function cacheKey(request: ReadRequest): string {
  return `${spaceOf(request)}${separator}${request.uri}${separator}${request.principal ?? ''}`;
}

/**
 * Where a private result read with shared credentials is kept: its user's own key (see
 * ReadRequest.privateTo); none for a read whose key already names its principal.
 */
function privateKeyOf(request: ReadRequest): string | undefined {
  if (request.principal !== undefined) return undefined;
  return `${spaceOf(request)}${separator}${request.uri}${separator}${privateMark}${request.privateTo ?? ''}`;
}

// Marks a key's last part as a user's private partition, apart from every per-user principal.
const privateMark = '\u0001';

/** The key's first part: the server's identity, or its name for a read made without one. */
function spaceOf(request: ReadRequest): string {
  return request.identity ?? request.server;
}

function keyUri(key: string): string {
  const start = key.indexOf(separator) + 1;
  return key.slice(start, key.indexOf(separator, start));
}
