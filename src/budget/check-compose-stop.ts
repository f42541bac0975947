import { ContextError } from '../errors.js';
import type { ComposableAttachment } from './composable-attachment.js';

/**
 * TURN_DEADLINE for an attachment whose counting or rendering would start past `stopAt` (the
 * `performance.now()` clock): the budget step's one check, made before each attachment's own
 * CPU work, so that a turn ends by its deadline (plus what the step in progress takes) however
 * many attachments were ready. The attachment is left out whole, never shown in part.
 */
export function checkComposeStop(stopAt: number | undefined, item: ComposableAttachment): void {
  if (stopAt === undefined || performance.now() < stopAt) return;
  const { server, uri } = item.provenance;
  throw new ContextError('TURN_DEADLINE', `${uri} was not counted and rendered by the turn deadline`, {
    server,
  });
}
