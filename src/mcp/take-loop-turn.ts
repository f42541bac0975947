/**
 * Resolves on a turn of the event loop of its own: one caller per turn, in the order they asked,
 * with timers run between them. Forty reads an in-process server answers at once resolve in one
 * microtask flush, and their CPU work (redacting, measuring, hashing, converting 5 MB each) would
 * run back to back before any timer: a turn's deadline could not fire until all of it was done.
 * Each read taking its own loop turn first lets the deadline fire between two of them. An idle
 * loop turn costs a few microseconds; a cache hit never waits for one.
 */
export function takeLoopTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve);
    scheduleNext();
  });
}

/**
 * While a turn composes its context, no read's CPU work is let in: reads a turn stopped waiting
 * for at its deadline go on filling the cache, but after the turns already answering, not between
 * the steps of their budget (whose tokenizer yields every 64 KB). Every call is paired with
 * {@link releaseLoopTurns}.
 */
export function holdLoopTurns(): void {
  holds += 1;
}

export function releaseLoopTurns(): void {
  holds -= 1;
  scheduleNext();
}

// --- Internal helpers ---

const waiting: (() => void)[] = [];
let holds = 0;
let scheduled = false;

function scheduleNext(): void {
  if (scheduled || holds > 0 || waiting.length === 0) return;
  scheduled = true;
  setImmediate(releaseNext);
}

function releaseNext(): void {
  scheduled = false;
  if (holds > 0) return;
  // Its continuation runs in the microtasks after this callback, before the next loop turn.
  waiting.shift()?.();
  // An immediate set from an immediate runs on the next loop turn, after its timers: not in this
  // check phase (as forty immediates set at once would).
  scheduleNext();
}
