import type { Scope } from '../types.js';

/** One string per scope, unambiguous across kinds: `pipeline:support`, `conversation:c-42`. */
export function scopeKeyOf(scope: Scope): string {
  return 'pipelineId' in scope ? `pipeline:${scope.pipelineId}` : `conversation:${scope.conversationId}`;
}
