import { onAbort } from './on-abort.js';

/**
 * Settles like `promise`, or rejects with the signal's reason as soon as it aborts. Either way
 * `promise` is handled: its later failure (a read that fails after the caller gave up) is not
 * an unhandled rejection. The wait adds no listener of its own to the signal (`onAbort`).
 */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const stop = onAbort(signal, () => reject(signal.reason));
    promise.then(
      (value) => {
        stop();
        resolve(value);
      },
      (error: unknown) => {
        stop();
        reject(error);
      },
    );
  });
}
