/**
 * The change history a turn is compared with: its conversation's, or its pipeline's for turns
 * without one. Each kind has its own prefix, so a conversation named like a pipeline's key
 * (`pipeline:support`) never shares that pipeline's history.
 */
export function historyKeyOf(turn: {
  readonly pipelineId: string;
  readonly conversationId?: string;
}): string {
  return turn.conversationId !== undefined
    ? `conversation:${turn.conversationId}`
    : `pipeline:${turn.pipelineId}`;
}
