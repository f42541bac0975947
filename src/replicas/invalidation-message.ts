import { z } from 'zod';
import type { Invalidation } from '../cache/shared-tier.js';

/**
 * A message on the invalidation channel is untrusted input: anyone who can publish on the
 * channel may send anything. Far above any invalidation the tier sends (those past it are sent as
 * the coarser `list-changed` of their server), and checked before parsing so a huge message costs
 * no parse.
 */
export const maxInvalidationMessageLength = 64 * 1024;

const server = z.string().min(1);

const invalidationMessageSchema = z.object({
  origin: z.string().min(1),
  /** The sender's clock at publish time (latency reporting only, never trusted for freshness). */
  sentAt: z.number().finite().optional(),
  /**
   * The generation the invalidation raised (the server's, or the URI's for `updated`). Absent
   * from replicas of an older release.
   */
  generation: z.number().int().nonnegative().optional(),
  // `all-stale` is a replica's own conclusion (its connection dropped), never sent on the wire.
  invalidation: z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('updated'), server, uri: z.string().min(1) }),
    z.object({ kind: z.literal('list-changed'), server }),
    z.object({ kind: z.literal('session-closed'), server }),
  ]),
});

export type InvalidationMessage = {
  readonly origin: string;
  readonly sentAt?: number;
  readonly generation?: number;
  readonly invalidation: Exclude<Invalidation, { kind: 'all-stale' }>;
};

/** The message, or undefined when it is not one (not JSON, the wrong shape, too long). Never throws. */
export function parseInvalidationMessage(message: string): InvalidationMessage | undefined {
  if (message.length > maxInvalidationMessageLength) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(message);
  } catch {
    return undefined;
  }
  const parsed = invalidationMessageSchema.safeParse(value);
  if (!parsed.success) return undefined;
  const { origin, sentAt, generation, invalidation } = parsed.data;
  return {
    origin,
    invalidation,
    ...(sentAt !== undefined && { sentAt }),
    ...(generation !== undefined && { generation }),
  };
}
