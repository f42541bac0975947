import { z } from 'zod';

// Apart from the tier so that the config file's validation does not load `ioredis`.
export const redisTierOptionsSchema = z.strictObject({
  /** `redis://host:port/db`. */
  url: z.string().min(1).default('redis://127.0.0.1:6379'),
  /** Every key and the channel start with it: several deployments can share one Redis. */
  keyPrefix: z.string().min(1).max(128).default('mcp-context:'),
  /** How long a shared copy lives (give every replica the same value). */
  ttlMs: z
    .number()
    .int()
    .positive()
    .default(5 * 60_000),
  /** Larger reads are not shared (each replica keeps its own copy). */
  maxEntryBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  /** A read lease lasts this long unless its holder renews it: a dead holder delays others at most this. */
  leaseMs: z.number().int().positive().default(2_000),
  /** How long a replica waits for another's read before reading on its own. */
  waitTimeoutMs: z.number().int().positive().default(5_000),
  /** Each Redis command fails after this, so a stalled Redis costs a turn at most this much per step. */
  commandTimeoutMs: z.number().int().positive().default(1_000),
  /**
   * This replica's clock (default `Date.now`): a shared copy is usable only if it was fetched at
   * most `ttlMs` before it, whatever the clock of the replica that wrote it.
   */
  now: z
    .custom<() => number>((value) => typeof value === 'function', { message: 'now must be a function' })
    .optional(),
  /** Names this replica in the messages it publishes (default: a random id). */
  replicaId: z.string().min(1).optional(),
});

export type RedisSharedTierOptions = z.input<typeof redisTierOptionsSchema>;
