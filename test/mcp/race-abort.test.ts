import { describe, expect, it, onTestFinished } from 'vitest';
import { raceAbort } from '../../src/mcp/race-abort.js';

/** A promise the test rejects by hand. */
function deferred() {
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<never>((_, fail) => {
    reject = fail;
  });
  return { promise, reject };
}

/** Unhandled rejections seen from now on until the test ends. */
function watchUnhandled() {
  const seen: unknown[] = [];
  const listener = (reason: unknown) => seen.push(reason);
  process.on('unhandledRejection', listener);
  onTestFinished(() => {
    process.off('unhandledRejection', listener);
  });
  return seen;
}

/** One turn of the event loop: Node reports unhandled rejections before it ends. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('raceAbort', () => {
  it('with the signal already aborted, it rejects with its reason and a later failure of the promise is handled', async () => {
    const unhandled = watchUnhandled();
    const late = deferred();
    const controller = new AbortController();
    controller.abort(new Error('host gave up'));
    await expect(raceAbort(late.promise, controller.signal)).rejects.toThrow('host gave up');
    late.reject(new Error('the read failed after all'));
    await nextTurn();
    expect(unhandled).toEqual([]);
  });

  it('aborted while waiting: rejects with the reason, and a later failure of the promise is handled', async () => {
    const unhandled = watchUnhandled();
    const late = deferred();
    const controller = new AbortController();
    const raced = raceAbort(late.promise, controller.signal);
    controller.abort(new Error('deadline'));
    await expect(raced).rejects.toThrow('deadline');
    late.reject(new Error('the read failed after all'));
    await nextTurn();
    expect(unhandled).toEqual([]);
  });

  it('settles like the promise when the signal does not abort', async () => {
    const controller = new AbortController();
    await expect(raceAbort(Promise.resolve(7), controller.signal)).resolves.toBe(7);
    await expect(raceAbort(Promise.reject(new Error('no')), controller.signal)).rejects.toThrow('no');
    await expect(raceAbort(Promise.resolve(8), undefined)).resolves.toBe(8);
  });
});
