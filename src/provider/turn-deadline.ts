/** A turn's deadline: its signal, and `end()` for when the turn is over. */
export interface TurnDeadline {
  /** Aborts with a `TimeoutError` once the deadline passes. */
  readonly signal: AbortSignal;
  /** Clears the timer: nothing of a finished turn stays behind. */
  end(): void;
}

/**
 * The turn deadline, `ms` from now. Not `AbortSignal.timeout`: its timer cannot be cleared, so
 * every turn left one pending for the whole deadline (30 s by default) — a timer and a signal
 * per turn alive long after it, promoted out of the young generation at every scavenge.
 */
export function startTurnDeadline(ms: number): TurnDeadline {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new DOMException(`the turn deadline (${ms} ms) passed`, 'TimeoutError'));
  }, ms);
  return { signal: controller.signal, end: () => clearTimeout(timer) };
}
