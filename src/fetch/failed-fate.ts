import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';
import { ContextError } from '../errors.js';
import type { FetchedAttachment } from './fetch-attachment.js';

/** A skill's entry that could not be had or is refused: an error (or timeout) for the trace. */
export function failedFate(
  error: unknown,
  attachment: ResolvedAttachment,
  deadline: AbortSignal,
  durationMs: number,
): Extract<FetchedAttachment, { kind: 'failed' }> {
  const failure = ContextError.isInstance(error)
    ? error
    : new ContextError(
        'INTERNAL_ERROR',
        `${attachment.uri}: ${String(error)}`,
        { server: attachment.server },
        error,
      );
  const status = deadline.aborted || failure.code === 'REQUEST_TIMEOUT' ? 'timeout' : 'error';
  return { kind: 'failed', status, error: failure, cache: 'bypass', durationMs };
}
