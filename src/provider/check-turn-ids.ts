import { requireBoundaryText } from '../options/boundary-text.js';
import type { Turn } from '../types.js';

// Optional ids of a turn, checked when given.
const optionalIds = ['agentId', 'conversationId', 'principal', 'turnId'] as const;

/**
 * A turn's ids by the rule every id at the API boundary follows (see boundary-text.ts), before
 * anything reads with them: an id that a store could not hold, or would hold as another (a lone
 * surrogate becomes U+FFFD in PostgreSQL), is INVALID_OPTION naming `turn.<field>` and the limit,
 * not a store's or a server's failure later on.
 */
export function checkTurnIds(turn: Turn): void {
  requireBoundaryText(turn.pipelineId, 'id', 'turn.pipelineId', 'INVALID_OPTION');
  for (const field of optionalIds) {
    const value = turn[field];
    if (value !== undefined) requireBoundaryText(value, 'id', `turn.${field}`, 'INVALID_OPTION');
  }
}
