/** The waits on one signal, and the one 'abort' listener that stands for all of them. */
interface Waits {
  readonly listeners: Set<() => void>;
  readonly handler: () => void;
}

const waitsOf = new WeakMap<AbortSignal, Waits>();

/**
 * Calls `listener` when `signal` aborts; the function returned stops that (call it once the
 * wait is over). However many wait on one signal at once (every attachment of a turn, every
 * parallel read on one connection), the signal carries one 'abort' listener of ours, added by
 * the first wait and removed by the last: nothing of ours stays on a long-lived signal (a
 * host's, a connection's) between waits, its listener limit is never reached, and nothing
 * counts listeners or raises the limit.
 *
 * `signal` must not be aborted yet: an aborted signal fires no more 'abort' events, so check
 * `signal.aborted` first. Each wait passes its own function (the same function twice is one wait).
 */
export function onAbort(signal: AbortSignal, listener: () => void): () => void {
  let waits = waitsOf.get(signal);
  if (waits === undefined) {
    const listeners = new Set<() => void>();
    const handler = () => {
      waitsOf.delete(signal);
      for (const each of listeners) each();
      listeners.clear();
    };
    waits = { listeners, handler };
    waitsOf.set(signal, waits);
    signal.addEventListener('abort', handler, { once: true });
  }
  const { listeners, handler } = waits;
  listeners.add(listener);
  return () => {
    if (!listeners.delete(listener) || listeners.size > 0 || signal.aborted) return;
    waitsOf.delete(signal);
    signal.removeEventListener('abort', handler);
  };
}
