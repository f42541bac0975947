import type { ResolvedAttachment, TurnAttachments } from './resolve-turn-attachments.js';
import { resolveTurnAttachments } from './resolve-turn-attachments.js';

/**
 * Step 1, resolve, its second half: the collected attachments, each resolved once, merged by
 * (server, uri). A message attachment that does not resolve fails the turn (the host sent it,
 * the host should hear); a stored pin that does not resolve is reported in the trace and the
 * turn goes on.
 */
export function resolveCollected(collected: TurnAttachments): readonly ResolvedAttachment[] {
  const resolved = resolveTurnAttachments(collected);
  // Only a message attachment can be refused: without any, the pins are not looked at again.
  const refused =
    collected.message.length > 0 &&
    resolved.find((attachment) => attachment.scope === 'message' && attachment.error);
  if (refused && refused.error !== undefined) throw refused.error;
  return resolved;
}
