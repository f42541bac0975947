import { ContextError } from '../errors.js';
import type { Turn } from '../types.js';

/** ABORTED when the host aborted the turn: checked once its attachments are ready (or kept). */
export function throwIfHostAborted(turn: Turn): void {
  if (turn.signal?.aborted) {
    throw new ContextError('ABORTED', 'the turn was aborted by the host', { value: turn.turnId });
  }
}
