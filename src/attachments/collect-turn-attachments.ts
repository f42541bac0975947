import type { MessageAttachment, Turn } from '../types.js';
import { parseMessageAttachment } from './attachment-schema.js';
import type { AttachmentStore } from './attachment-store.js';
import type { TurnAttachments } from './resolve-turn-attachments.js';

/**
 * Step 1, resolve, its first half: the pipeline's pins, the conversation's pins (each with its
 * version) and the message's attachments, validated. `resolveCollected` merges them; a turn
 * answered as kept (see the provider's kept turns) needs only this half.
 */
export async function collectTurnAttachments(
  store: AttachmentStore,
  turn: Pick<Turn, 'pipelineId' | 'conversationId' | 'message'>,
): Promise<TurnAttachments> {
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
  return { pipeline, conversation, message };
}

const none: readonly never[] = Object.freeze([]);
