import type { MessageAttachment, Turn } from '../types.js';
import { parseMessageAttachment } from './attachment-schema.js';
import type { AttachmentStore } from './attachment-store.js';
import { type ResolvedAttachment, resolveTurnAttachments } from './resolve-turn-attachments.js';

/**
 * Step 1, resolve: the pipeline's pins, the conversation's pins and the message's attachments,
 * each validated and resolved once, merged by (server, uri). A message attachment that does not
 * resolve fails the turn (the host sent it, the host should hear); a stored pin that does not
 * resolve is reported in the trace and the turn goes on.
 */
export async function collectTurnAttachments(
  store: AttachmentStore,
  turn: Pick<Turn, 'pipelineId' | 'conversationId' | 'message'>,
): Promise<readonly ResolvedAttachment[]> {
  const attachments = turn.message?.attachments;
  const message: readonly MessageAttachment[] = attachments?.length
    ? attachments.map((attachment, index) => parseMessageAttachment(attachment, index))
    : none;
  // Both scopes at once when there are two (a store may be a database); one list needs no Promise.all.
  const [pipeline, conversation] = turn.conversationId
    ? await Promise.all([
        store.list({ pipelineId: turn.pipelineId }),
        store.list({ conversationId: turn.conversationId }),
      ])
    : [await store.list({ pipelineId: turn.pipelineId }), none];
  const resolved = resolveTurnAttachments({ pipeline, conversation, message });
  // Only a message attachment can be refused: without any, the pins are not looked at again.
  const refused =
    message.length > 0 && resolved.find((attachment) => attachment.scope === 'message' && attachment.error);
  if (refused && refused.error !== undefined) throw refused.error;
  return resolved;
}

const none: readonly never[] = Object.freeze([]);
