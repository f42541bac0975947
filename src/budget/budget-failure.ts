import { ContextError } from '../errors.js';
import type { ComposableAttachment } from './composable-attachment.js';

/**
 * What an unexpected throw while assembling, counting or rendering one attachment becomes: that
 * attachment's own typed failure (its trace entry is an error), so that the turn goes on with the
 * others. A ContextError keeps its code; anything else is a bug on our side, INTERNAL_ERROR.
 */
export function budgetFailure(error: unknown, item: ComposableAttachment): ContextError {
  if (ContextError.isInstance(error)) return error;
  const { server, uri } = item.provenance;
  return new ContextError(
    'INTERNAL_ERROR',
    `${uri}: its content could not be counted or rendered (${String(error)})`,
    { server },
    error,
  );
}
