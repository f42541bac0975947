import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';
import { ContextError } from '../errors.js';
import { mapItems } from '../map-items.js';
import { raceAbort } from '../mcp/race-abort.js';
import type { TurnItem } from './turn-item.js';

/**
 * Each attachment's outcome, or — for every one still pending when the turn's signal aborts
 * (deadline or host) — a TURN_DEADLINE timeout; what was still running goes on in the
 * background (a shared read still fills the cache). One wait on the signal for the whole turn.
 */
export async function untilTurnEnds(
  outcomes: readonly (TurnItem | Promise<TurnItem>)[],
  resolved: readonly ResolvedAttachment[],
  // Asked for only when something is pending: a warm turn makes no signal.
  until: { readonly signal: AbortSignal },
  deadlineMs: number,
): Promise<TurnItem[]> {
  // Everything answered at once (a warm turn) waits on nothing: the outcomes are the items.
  if (!outcomes.some((outcome) => outcome instanceof Promise)) return outcomes as TurnItem[];
  const started = performance.now();
  const settled: (TurnItem | undefined)[] = new Array(outcomes.length);
  const pending: Promise<void>[] = [];
  for (let index = 0; index < outcomes.length; index++) {
    const outcome = outcomes[index];
    if (outcome instanceof Promise) {
      pending.push(
        outcome.then((item) => {
          settled[index] = item;
        }),
      );
    } else settled[index] = outcome;
  }
  const { signal } = until;
  try {
    await raceAbort(Promise.all(pending), signal);
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  // mapItems: the warm turn's items are made so too, and the functions they reach see one map.
  return mapItems(resolved, (attachment, index) => {
    const item = settled[index];
    if (item) return item;
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
    return { attachment, fate };
  });
}
