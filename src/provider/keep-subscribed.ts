import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';
import type { PinSubscriptions } from '../cache/pin-subscriptions.js';
import type { Turn } from '../types.js';
import type { Access } from './authorize-read.js';

type Target = { server: string; uri: string };

/**
 * Pins (not one-off message attachments) stay subscribed while some scope holds them: the
 * turn's own resolution and authorization decide which, nothing is resolved again.
 */
export function keepSubscribed(
  subscriptions: PinSubscriptions | undefined,
  turn: Turn,
  resolved: readonly ResolvedAttachment[],
  accesses: readonly Access[],
): void {
  if (!subscriptions) return;
  const held: Record<'pipeline' | 'conversation', Target[]> = { pipeline: [], conversation: [] };
  for (let index = 0; index < resolved.length; index++) {
    const attachment = resolved[index] as ResolvedAttachment;
    if (!accesses[index]?.allowed) continue;
    // The attachment is its own (server, uri) target: no copy per pin per turn.
    const target: Target = attachment;
    if (attachment.scope !== 'message') held[attachment.scope].push(target);
    // A pin merged into a narrower scope's attachment is still held by its own scope.
    for (const { scope } of attachment.superseded) {
      if (scope !== 'message' && scope !== attachment.scope) held[scope].push(target);
    }
  }
  subscriptions.reconcile(`pipeline:${turn.pipelineId}`, held.pipeline);
  if (turn.conversationId) subscriptions.reconcile(`conversation:${turn.conversationId}`, held.conversation);
}
