import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';
import type { PinSubscriptions } from '../cache/pin-subscriptions.js';
import type { Authorized } from '../policy/authorize-attachments.js';
import type { Turn } from '../types.js';

type Target = { server: string; uri: string };

/** What each of a turn's scopes holds after it reconciled them (see PinSubscriptions.reconcile). */
export interface HeldTargets {
  readonly pipeline: readonly Target[];
  readonly conversation?: readonly Target[];
}

/**
 * Pins (not one-off message attachments) stay subscribed while some scope holds them: the
 * turn's own resolution and authorization decide which, nothing is resolved again.
 */
export function keepSubscribed(
  subscriptions: PinSubscriptions | undefined,
  turn: Turn,
  authorized: readonly Authorized<ResolvedAttachment>[],
): HeldTargets | undefined {
  if (!subscriptions) return undefined;
  const held: Record<'pipeline' | 'conversation', Target[]> = { pipeline: [], conversation: [] };
  for (const { attachment, access } of authorized) {
    if (!access.allowed) continue;
    // The attachment is its own (server, uri) target: no copy per pin per turn.
    const target: Target = attachment;
    if (attachment.scope !== 'message') held[attachment.scope].push(target);
    // A pin merged into a narrower scope's attachment is still held by its own scope.
    for (const { scope } of attachment.superseded) {
      if (scope !== 'message' && scope !== attachment.scope) held[scope].push(target);
    }
  }
  return keepHeld(subscriptions, turn, held);
}

/**
 * A kept turn's scopes, reconciled again with what its full turn held: the same lists, so each
 * is recognized by identity unless another turn changed what its scope holds since.
 */
export function keepHeld(
  subscriptions: PinSubscriptions | undefined,
  turn: Turn,
  held: HeldTargets | undefined,
): HeldTargets | undefined {
  if (!subscriptions || !held) return undefined;
  const pipeline = subscriptions.reconcile(`pipeline:${turn.pipelineId}`, held.pipeline);
  if (!turn.conversationId || !held.conversation) return { pipeline };
  return {
    pipeline,
    conversation: subscriptions.reconcile(`conversation:${turn.conversationId}`, held.conversation),
  };
}
