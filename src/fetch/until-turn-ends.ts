import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';
import { ContextError } from '../errors.js';
import { raceAbort } from '../mcp/race-abort.js';
import type { Authorized } from '../policy/authorize-attachments.js';
import type { TurnAttachment } from './turn-attachment.js';

/**
 * An attachment's outcome, or — when the turn's signal aborts first (deadline or host) — a
 * TURN_DEADLINE timeout; what was still running goes on in the background (a shared read still
 * fills the cache). A failure that is not the turn ending is not swallowed.
 */
export async function untilTurnEnds(
  pending: Promise<TurnAttachment>,
  { attachment, access }: Authorized<ResolvedAttachment>,
  // Asked for only when something is pending: a warm turn makes no signal.
  until: { readonly signal: AbortSignal },
  deadlineMs: number,
): Promise<TurnAttachment> {
  const started = performance.now();
  const { signal } = until;
  try {
    return await raceAbort(pending, signal);
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  const failure = new ContextError(
    'TURN_DEADLINE',
    `${attachment.uri} was not ready by the turn deadline (${deadlineMs} ms)`,
    { server: attachment.server },
  );
  const fate = {
    kind: 'failed',
    status: 'timeout',
    error: failure,
    cache: 'miss',
    durationMs: performance.now() - started,
  } as const;
  return { attachment, access, fate, composed: undefined };
}

/** Every outcome, once settled: the same array when each was answered at once (a warm turn waits on nothing). */
export function settledAll<T>(outcomes: readonly (T | Promise<T>)[]): readonly T[] | Promise<T[]> {
  return outcomes.every(isSettled) ? outcomes : Promise.all(outcomes);
}

// --- Internal helpers ---

function isSettled<T>(outcome: T | Promise<T>): outcome is T {
  return !(outcome instanceof Promise);
}
