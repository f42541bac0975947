import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';
import { ContextError } from '../errors.js';
import type { Access } from './authorize-read.js';

/**
 * Skills beyond the host's per-turn cap, in rank order, are errors (LIMIT_EXCEEDED) before
 * anything is asked of their servers. `accesses` is one per attachment, in the same order.
 */
export function capSkills(
  resolved: readonly ResolvedAttachment[],
  accesses: Access[],
  maxPerTurn: number,
): Access[] {
  let skills = 0;
  for (let index = 0; index < resolved.length; index++) {
    const attachment = resolved[index] as ResolvedAttachment;
    if (!attachment.skill || !accesses[index]?.allowed) continue;
    skills += 1;
    if (skills <= maxPerTurn) continue;
    const error = new ContextError(
      'LIMIT_EXCEEDED',
      `this turn already loads ${maxPerTurn} skill(s), the host's cap (skills.maxPerTurn)`,
      { server: attachment.server, field: 'skills.maxPerTurn', value: maxPerTurn },
    );
    accesses[index] = {
      allowed: false,
      fate: { kind: 'failed', status: 'error', error, cache: 'bypass', durationMs: 0 },
    };
  }
  return accesses;
}
