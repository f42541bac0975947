import { onAbort } from '../mcp/on-abort.js';

/**
 * How long past the deadline the budget step may still count and render what was ready by it:
 * a turn whose fetch took all of its time still composes what it got. Past it, what is not
 * counted and rendered yet is left out (TURN_DEADLINE).
 */
export const budgetGraceMs = 100;

/**
 * A turn's deadline and the signal its waits abort on. Both are made when something first asks
 * for them: a warm turn, whose every attachment is answered from the cache, waits on nothing and
 * makes neither a timer nor a signal (an AbortController, an `AbortSignal.any` and a timer per
 * turn were a twentieth of a warm turn's time). A deadline made late still falls `ms` after the
 * turn started.
 */
export class TurnDeadline {
  /** When the turn started, on the `performance.now()` clock. */
  readonly started: number;
  /** When the deadline falls, on the same clock. */
  readonly at: number;
  /** When the budget step stops counting and rendering, on the same clock (see budgetGraceMs). */
  readonly composeBy: number;
  readonly #ms: number;
  readonly #host: AbortSignal | undefined;
  #controller: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #signal: AbortSignal | undefined;
  /** Unhooks the turn's signal from the host's (which may live for many turns) when it ends. */
  #unhookHost: (() => void) | undefined;
  #ended = false;

  /** The deadline `ms` from now; `host` is the host's own signal for the turn, if any. */
  constructor(ms: number, host: AbortSignal | undefined) {
    this.started = performance.now();
    this.at = this.started + ms;
    this.composeBy = this.at + budgetGraceMs;
    this.#ms = ms;
    this.#host = host;
  }

  /** The deadline alone (aborts with a `TimeoutError`), to tell a deadline from a host abort. */
  get deadline(): AbortSignal {
    if (!this.#controller) {
      const controller = new AbortController();
      this.#controller = controller;
      // A turn that has ended keeps no timer: its signal never aborts.
      if (!this.#ended) {
        this.#timer = setTimeout(
          () => {
            controller.abort(new DOMException(`the turn deadline (${this.#ms} ms) passed`, 'TimeoutError'));
          },
          Math.max(0, this.at - performance.now()),
        );
      }
    }
    return this.#controller.signal;
  }

  /**
   * What the turn's waits abort on: the host's signal or the deadline, whichever comes first.
   * The turn's waits share one listener on it (`onAbort`, as `raceAbort` waits), and it one on
   * the host's signal, removed when the turn ends. (`AbortSignal.any` adds no listener, but on
   * Node 20 each call leaves a reference on the host's signal that stays until it aborts: one
   * per turn on a signal a host may pass to every turn.)
   */
  get signal(): AbortSignal {
    if (!this.#signal) this.#signal = this.#host ? this.#eitherOf(this.#host) : this.deadline;
    return this.#signal;
  }

  /** Clears the timer, if one was made, and unhooks from the host's signal: nothing of a finished turn stays behind. */
  end(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#unhookHost?.();
  }

  // --- Internal helpers ---

  #eitherOf(host: AbortSignal): AbortSignal {
    const deadline = this.deadline;
    if (host.aborted) return AbortSignal.abort(host.reason);
    if (deadline.aborted) return deadline;
    // Asked after the turn ended (a read that goes on in the background): nothing hooks the host's signal.
    if (this.#ended) return deadline;
    const either = new AbortController();
    this.#unhookHost = onAbort(host, () => either.abort(host.reason));
    onAbort(deadline, () => {
      this.#unhookHost?.();
      either.abort(deadline.reason);
    });
    return either.signal;
  }
}
