import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { EventEmitter } from 'eventemitter3';
import { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { z } from 'zod';
import type {
  Invalidation,
  SharedContent,
  SharedKey,
  SharedLookup,
  SharedTier,
} from '../cache/shared-tier.js';
import { parseOptions } from '../options/parse-options.js';
import { maxInvalidationMessageLength, parseInvalidationMessage } from './invalidation-message.js';
import { readSharedCopy, type SharedCopy } from './read-shared-copy.js';
import { redisKeys } from './redis-keys.js';
import { fillScript, invalidateScript, lookupScript, releaseScript, renewScript } from './redis-scripts.js';
import { type RedisSharedTierOptions, redisTierOptionsSchema } from './redis-tier-options.js';

export type RedisSharedTierEvents = {
  /** The subscription dropped: local copies are marked stale (messages may be missed). */
  'connection-lost': [];
  /** Subscribed again: local copies marked stale once more (messages may have been missed). */
  'connection-restored': [];
  /** Another replica's message was applied; `latencyMs` from its publish (same-host clocks). */
  'invalidation-received': [event: { invalidation: Invalidation; origin: string; latencyMs: number }];
  /** Publishing failed (Redis unreachable): kept, and sent when Redis is back. */
  'invalidation-kept': [invalidation: Invalidation];
};

export interface RedisSharedTierMetrics {
  readonly hits: number;
  readonly leads: number;
  readonly waits: number;
  readonly waitTimeouts: number;
  readonly unavailable: number;
  readonly tooLargeToShare: number;
  readonly published: number;
  readonly publishFailures: number;
  readonly received: number;
  /** Messages on the channel that were not invalidations (not JSON, the wrong shape, too long): dropped. */
  readonly malformedMessages: number;
  /**
   * Shared copies that were not copies (a key of another type, not JSON, not a read result's
   * shape, larger than maxEntryBytes): misses, read from the server and replaced.
   */
  readonly malformedCopies: number;
  /** Shared copies whose contents do not hash to their recorded sha256 (or byte count): misses. */
  readonly mismatchedCopies: number;
  /** Shared copies fetched more than ttlMs before this replica's clock (by the writer's or Redis's time): misses. */
  readonly expiredCopies: number;
  /**
   * Shared copies written under an older generation than one this replica heard announced (Redis
   * restarted from an older snapshot, or lost the counter): misses.
   */
  readonly outdatedCopies: number;
}

/** Why a shared copy was a miss, and the metric that counts it. */
type Rejection = 'malformed' | 'mismatched' | 'expired' | 'outdated';
const rejectionMetric = {
  outdated: 'outdatedCopies',
  malformed: 'malformedCopies',
  mismatched: 'mismatchedCopies',
  expired: 'expiredCopies',
} as const satisfies Record<Rejection, keyof RedisSharedTierMetrics>;

export type { RedisSharedTierOptions };

// Generations remembered per replica; past this, the least recently heard are forgotten (their
// copies are then judged by Redis's counters alone, as before a restart could roll them back).
const maxHeardGenerations = 100_000;
// Pending invalidations kept while Redis is unreachable; past this, they collapse per server.
const maxPending = 1_000;

/**
 * The fleet's shared tier on Redis (ioredis): a second-level content cache, read leases and an
 * invalidation bus, for a ContentCache (`new ContentCache({ shared })`). Redis being slow or
 * down never reaches a turn as an error: lookups answer `alone` within their bounds, publishes
 * are kept and sent on reconnect, and local caches are marked stale whenever messages may have
 * been missed.
 */
export class RedisSharedTier extends EventEmitter<RedisSharedTierEvents> implements SharedTier {
  readonly replicaId: string;
  readonly #now: () => number;
  readonly #options: z.output<typeof redisTierOptionsSchema>;
  readonly #keys: ReturnType<typeof redisKeys>;
  readonly #commands: Redis;
  readonly #subscriber: Redis;
  readonly #listeners = new Set<(invalidation: Invalidation) => void>();
  readonly #pending = new Map<string, Invalidation>();
  /**
   * The highest generation this replica heard announced, per generation key: what a copy must
   * have been written under at least, even after Redis restarted from an older snapshot.
   */
  readonly #heard = new LRUCache<string, number>({ max: maxHeardGenerations });
  /** A generation outlives every shared copy that recorded it (the fill renews it). */
  readonly #generationTtlMs: number;
  #subscribed = false;
  #everSubscribed = false;
  #closed = false;
  #metrics = {
    hits: 0,
    leads: 0,
    waits: 0,
    waitTimeouts: 0,
    unavailable: 0,
    tooLargeToShare: 0,
    published: 0,
    publishFailures: 0,
    received: 0,
    malformedMessages: 0,
    malformedCopies: 0,
    mismatchedCopies: 0,
    expiredCopies: 0,
    outdatedCopies: 0,
  };

  constructor(options: RedisSharedTierOptions = {}) {
    super();
    this.#options = parseOptions(redisTierOptionsSchema, options, 'redis');
    this.replicaId = this.#options.replicaId ?? randomUUID();
    this.#now = this.#options.now ?? Date.now;
    this.#generationTtlMs = this.#options.ttlMs * 2 + 60_000;
    this.#keys = redisKeys(this.#options.keyPrefix);
    const connection = {
      commandTimeout: this.#options.commandTimeoutMs,
      connectTimeout: this.#options.commandTimeoutMs * 5,
      // Fail at once while disconnected: the caller reads on its own instead of queueing.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 2_000),
    };
    this.#commands = new Redis(this.#options.url, connection);
    this.#subscriber = new Redis(this.#options.url, { ...connection, autoResubscribe: false });
    // Errors are reported as states (unavailable, connection-lost), never thrown at the host.
    this.#commands.on('error', () => undefined);
    this.#subscriber.on('error', () => undefined);
    this.#commands.on('ready', () => void this.#flushPending());
    this.#subscriber.on('ready', () => void this.#subscribe());
    this.#subscriber.on('close', () => this.#onSubscriptionLost());
    this.#subscriber.on('message', (_channel: string, message: string) => this.#onMessage(message));
  }

  /** Resolves once subscribed and ready for commands; rejects after `timeoutMs`. */
  async ready(timeoutMs = 5_000): Promise<void> {
    const started = Date.now();
    while (!(this.#subscribed && this.#commands.status === 'ready')) {
      if (this.#closed || Date.now() - started > timeoutMs)
        throw new Error(`Redis at ${this.#options.url} not ready`);
      await delay(10);
    }
  }

  async lookup(key: SharedKey): Promise<SharedLookup> {
    if (this.#commands.status !== 'ready') return this.#alone('unavailable');
    const token = randomUUID();
    const keys = this.#scriptKeys(key);
    const deadline = Date.now() + this.#options.waitTimeoutMs;
    // Once a copy was found unusable, it is passed over: this replica reads under the lease.
    let skipCopy = false;
    const rejected = new Set<Rejection>();
    const reject = (reason: Rejection) => {
      // Each reason counted once per lookup, however often the same copy is seen.
      if (!rejected.has(reason)) this.#metrics[rejectionMetric[reason]]++;
      rejected.add(reason);
    };
    try {
      for (let attempt = 0; ; attempt++) {
        const reply = (await this.#commands.eval(
          lookupScript,
          4,
          ...keys,
          token,
          this.#options.leaseMs,
          skipCopy ? '1' : '0',
          this.#options.maxEntryBytes,
          this.#heard.get(keys[2]) ?? 0,
          this.#heard.get(keys[3]) ?? 0,
          this.#generationTtlMs,
        )) as string[];
        if (reply[0] === 'hit') {
          const usable = this.#usableCopy(reply[1] ?? '', reply[2] ?? '');
          if (usable.kind !== 'copy') {
            reject(usable.kind);
            skipCopy = true;
            continue;
          }
          this.#metrics.hits++;
          return { kind: 'hit', content: usable.content };
        }
        if (reply[0] === 'lead') {
          const unusable = scriptRejection(reply[3]);
          if (unusable) reject(unusable);
          this.#metrics.leads++;
          return this.#lead(keys, token, reply[1] ?? '0', reply[2] ?? '0');
        }
        const unusable = scriptRejection(reply[1]);
        if (unusable) reject(unusable);
        // Another replica is reading under the lease: its fill replaces whatever copy was here.
        skipCopy = false;
        if (attempt === 0) this.#metrics.waits++;
        if (Date.now() >= deadline) {
          this.#metrics.waitTimeouts++;
          return { kind: 'alone', reason: 'wait-timeout' };
        }
        // Another replica is reading: look again soon (its fill or its lease's expiry ends the wait).
        await delay(Math.min(5 * (attempt + 1), 25));
      }
    } catch {
      return this.#alone('unavailable');
    }
  }

  publish(invalidation: Invalidation): void {
    if (invalidation.kind === 'all-stale') return;
    void this.#send(invalidation);
  }

  onInvalidation(listener: (invalidation: Invalidation) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get metrics(): RedisSharedTierMetrics {
    return { ...this.#metrics };
  }

  /** Whether messages are being received right now. */
  get connected(): boolean {
    return this.#subscribed;
  }

  /** Closes both connections at once (pending invalidations are dropped). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#commands.disconnect();
    this.#subscriber.disconnect();
  }

  // --- Internal helpers ---

  #scriptKeys(key: SharedKey): [string, string, string, string] {
    return [
      this.#keys.entry(key),
      this.#keys.lease(key),
      this.#keys.serverGeneration(key.server),
      this.#keys.uriGeneration(key.server, key.uri),
    ];
  }

  /**
   * The copy if this replica may serve it: it parses and matches its sha256, and was fetched at
   * most ttlMs before this replica's clock. Its time is the earlier of what the writer recorded
   * and when Redis stored it, seen from this replica's clock (now − its age on Redis's clock),
   * so a writer whose clock runs ahead cannot extend its life. The content carries that time:
   * the local cache's own TTL counts from it.
   */
  #usableCopy(body: string, ageOnRedis: string): SharedCopy | { kind: 'expired' } {
    const copy = readSharedCopy(body);
    if (copy.kind !== 'copy') return copy;
    const now = this.#now();
    const age = Number(ageOnRedis);
    // A copy stored without a time (an older release) or a Redis clock gone back: the writer's time alone.
    const storedAt = ageOnRedis !== '' && Number.isFinite(age) ? now - Math.max(0, age) : now;
    const fetchedAt = Math.min(copy.content.fetchedAt, storedAt);
    if (now - fetchedAt > this.#options.ttlMs) return { kind: 'expired' };
    return { kind: 'copy', content: { ...copy.content, fetchedAt } };
  }

  #alone(reason: 'unavailable'): SharedLookup {
    this.#metrics.unavailable++;
    return { kind: 'alone', reason };
  }

  #lead(
    keys: [string, string, string, string],
    token: string,
    serverGeneration: string,
    uriGeneration: string,
  ) {
    const { leaseMs, ttlMs, maxEntryBytes } = this.#options;
    // Renewed while this replica reads; if it dies, the lease lapses within leaseMs.
    const renewal = setInterval(() => {
      this.#commands.eval(renewScript, 1, keys[1], token, leaseMs).catch(() => undefined);
    }, leaseMs / 3);
    renewal.unref();
    const release = () => {
      clearInterval(renewal);
      this.#commands.eval(releaseScript, 1, keys[1], token).catch(() => undefined);
    };
    return {
      kind: 'lead' as const,
      release,
      fill: async (content: SharedContent) => {
        clearInterval(renewal);
        const body = JSON.stringify(content);
        if (Buffer.byteLength(body) > maxEntryBytes) {
          this.#metrics.tooLargeToShare++;
          return release();
        }
        await this.#commands
          .eval(
            fillScript,
            4,
            ...keys,
            token,
            serverGeneration,
            uriGeneration,
            body,
            ttlMs,
            this.#generationTtlMs,
          )
          .catch(() => undefined);
      },
    };
  }

  async #send(heard: Exclude<Invalidation, { kind: 'all-stale' }>): Promise<void> {
    // Receivers drop messages past the bound unparsed: a URI that long is sent as its server's
    // list change (coarser, never missed).
    const invalidation =
      JSON.stringify(heard).length > maxInvalidationMessageLength - 512
        ? { kind: 'list-changed' as const, server: heard.server }
        : heard;
    const generation = this.#generationKey(invalidation);
    // The script adds the generation it raised to the message.
    const message = JSON.stringify({ origin: this.replicaId, sentAt: now(), invalidation });
    try {
      if (this.#commands.status !== 'ready') throw new Error('not connected');
      const raised = await this.#commands.eval(
        invalidateScript,
        1,
        generation,
        this.#keys.channel,
        message,
        this.#generationTtlMs,
        this.#heard.get(generation) ?? 0,
      );
      this.#hear(generation, Number(raised));
      this.#metrics.published++;
    } catch {
      this.#metrics.publishFailures++;
      this.#keep(invalidation);
      this.emit('invalidation-kept', invalidation);
    }
  }

  /** The generation an invalidation raises: its URI's for `updated`, else its server's. */
  #generationKey(invalidation: Exclude<Invalidation, { kind: 'all-stale' }>): string {
    return invalidation.kind === 'updated'
      ? this.#keys.uriGeneration(invalidation.server, invalidation.uri)
      : this.#keys.serverGeneration(invalidation.server);
  }

  /** Remembers the highest generation announced for `key` (Redis may later hold less). */
  #hear(key: string, generation: number): void {
    if (!Number.isSafeInteger(generation)) return;
    if (generation > (this.#heard.get(key) ?? 0)) this.#heard.set(key, generation);
  }

  /** Kept until Redis is back: the other replicas and the shared copies must still hear it. */
  #keep(invalidation: Exclude<Invalidation, { kind: 'all-stale' }>): void {
    const id = JSON.stringify(invalidation);
    this.#pending.set(id, invalidation);
    if (this.#pending.size <= maxPending) return;
    const servers = new Set([...this.#pending.values()].map((kept) => ('server' in kept ? kept.server : '')));
    this.#pending.clear();
    for (const server of servers) this.#pending.set(server, { kind: 'list-changed', server });
  }

  async #flushPending(): Promise<void> {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const invalidation of pending) {
      if (invalidation.kind !== 'all-stale') await this.#send(invalidation);
    }
  }

  async #subscribe(): Promise<void> {
    try {
      await this.#subscriber.subscribe(this.#keys.channel);
    } catch {
      return; // the connection dropped again; its next 'ready' retries
    }
    this.#subscribed = true;
    if (this.#everSubscribed) {
      // Whatever was published while unsubscribed was missed: nothing local is fresh.
      this.#notify({
        kind: 'all-stale',
        reason: 'Redis connection restored (invalidations may have been missed)',
      });
      this.emit('connection-restored');
    }
    this.#everSubscribed = true;
  }

  #onSubscriptionLost(): void {
    if (!this.#subscribed) return;
    this.#subscribed = false;
    if (this.#closed) return;
    this.#notify({ kind: 'all-stale', reason: 'Redis connection lost (invalidations may be missed)' });
    this.emit('connection-lost');
  }

  #onMessage(message: string): void {
    // Untrusted input: whatever does not parse as an invalidation is dropped and counted, never
    // thrown (a throw here is an uncaught exception in every replica at once).
    const parsed = parseInvalidationMessage(message);
    if (!parsed) {
      this.#metrics.malformedMessages++;
      return;
    }
    if (parsed.origin === this.replicaId) return;
    if (parsed.generation !== undefined)
      this.#hear(this.#generationKey(parsed.invalidation), parsed.generation);
    this.#metrics.received++;
    this.#notify(parsed.invalidation);
    const latencyMs = parsed.sentAt === undefined ? Number.NaN : now() - parsed.sentAt;
    this.emit('invalidation-received', {
      invalidation: parsed.invalidation,
      origin: parsed.origin,
      latencyMs,
    });
  }

  #notify(invalidation: Invalidation): void {
    for (const listener of this.#listeners) listener(invalidation);
  }
}

// --- Module helpers ---

/** What the lookup script found wrong with the copy it passed over, if anything. */
function scriptRejection(flag: string | undefined): Rejection | undefined {
  return flag === 'malformed' || flag === 'outdated' ? flag : undefined;
}

/** Wall-clock milliseconds with sub-millisecond resolution, comparable across processes on one host. */
function now(): number {
  return performance.timeOrigin + performance.now();
}
