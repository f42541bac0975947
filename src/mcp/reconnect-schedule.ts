import { z } from 'zod';

/** How a closed session is reopened. `false` turns reconnecting off. */
export const reconnectSchema = z.union([
  z.literal(false),
  z.strictObject({
    /** Delay before the first attempt, in milliseconds (default 1 s). */
    initialDelayMs: z.number().int().positive().default(1_000),
    /** Delays double per failed attempt up to this (default 30 s). */
    maxDelayMs: z.number().int().positive().default(30_000),
    /** Fraction of each delay taken off at random, so replicas do not reconnect in lockstep. */
    jitter: z.number().min(0).max(1).default(0.2),
    /**
     * Consecutive failures (failed connects, and sessions that closed sooner than
     * `stableSessionMs` after opening) after which the server is marked `failed`: calls fail at
     * once with SERVER_FAILED, and it is tried again only after `failedRetryMs` or on
     * `registry.reconnect(name)` (default 8).
     */
    maxFailures: z.number().int().positive().default(8),
    /** How long a failed server rests between attempts (default 5 min). */
    failedRetryMs: z.number().int().positive().default(300_000),
    /** A session that lives this long proves the server healthy again: failures restart from 0 (default 30 s). */
    stableSessionMs: z.number().int().positive().default(30_000),
  }),
]);

export type ReconnectOptions = z.input<typeof reconnectSchema>;
export type ReconnectPolicy = Exclude<z.output<typeof reconnectSchema>, false>;

/**
 * The wait before reconnect attempt `attempt` (0-based): 1 s, 2 s, 4 s … capped at
 * `maxDelayMs`, less up to `jitter` of it at random. Never more than the cap.
 */
export function reconnectDelay(
  attempt: number,
  policy: Pick<ReconnectPolicy, 'initialDelayMs' | 'maxDelayMs' | 'jitter'>,
  random: () => number = Math.random,
): number {
  // 2 ** 31 overflows nothing, but a cap on the exponent keeps the arithmetic exact.
  const exponential = policy.initialDelayMs * 2 ** Math.min(attempt, 30);
  const capped = Math.min(exponential, policy.maxDelayMs);
  return Math.round(capped * (1 - policy.jitter * random()));
}

/**
 * The wait before the next attempt after `failures` consecutive failures (0 after a session
 * that lived long enough): the backoff, or — once `maxFailures` is reached — the failed
 * server's long rest, `failed: true`.
 */
export function nextReconnectDelay(
  failures: number,
  policy: ReconnectPolicy,
  random: () => number = Math.random,
): { readonly delayMs: number; readonly failed: boolean } {
  if (failures >= policy.maxFailures) return { delayMs: policy.failedRetryMs, failed: true };
  return { delayMs: reconnectDelay(failures, policy, random), failed: false };
}
