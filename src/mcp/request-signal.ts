import { onAbort } from './on-abort.js';

/** A signal of one request's own, and the call that unhooks it from its parent. */
export interface RequestSignal {
  readonly signal: AbortSignal;
  /** Call once the request has settled (its body read, if it has one); again is harmless. */
  readonly release: () => void;
}

/**
 * A short-lived signal that aborts when `parent` does, for one request. What the request hands
 * it to (the SDK, which adds an 'abort' listener per request and never removes it; fetch, whose
 * listener stays until the request is garbage-collected) adds to this signal, which goes with
 * the request; `parent`, however long it lives and however many requests run under it at once,
 * carries one listener of ours (`onAbort`) and none once they have all been released.
 */
export function requestSignal(parent: AbortSignal): RequestSignal {
  if (parent.aborted) return { signal: AbortSignal.abort(parent.reason), release: () => {} };
  const controller = new AbortController();
  const release = onAbort(parent, () => controller.abort(parent.reason));
  return { signal: controller.signal, release };
}
