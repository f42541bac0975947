import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort } from '../../src/mcp/on-abort.js';
import { requestSignal } from '../../src/mcp/request-signal.js';

describe('onAbort', () => {
  it('50 waits on one signal carry one listener on it, and none once every wait has stopped', () => {
    const controller = new AbortController();
    const stops = Array.from({ length: 50 }, () => onAbort(controller.signal, () => {}));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for (const stop of stops.slice(1)) stop();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    stops[0]?.();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    // Waiting again after all had stopped hooks the signal again.
    const again: string[] = [];
    onAbort(controller.signal, () => again.push('again'));
    controller.abort();
    expect(again).toEqual(['again']);
  });

  it('calls each wait still waiting once when the signal aborts, in the order they began; a stopped one not at all', () => {
    const controller = new AbortController();
    const called: number[] = [];
    const stops = [0, 1, 2, 3].map((index) => onAbort(controller.signal, () => called.push(index)));
    stops[2]?.();
    controller.abort();
    controller.abort();
    expect(called).toEqual([0, 1, 3]);
    // Stopping after the abort is harmless.
    for (const stop of stops) stop();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });
});

describe('requestSignal', () => {
  it("aborts with its parent's reason, and once released leaves nothing on the parent", () => {
    const parent = new AbortController();
    const requests = Array.from({ length: 30 }, () => requestSignal(parent.signal));
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(1);
    for (const request of requests.slice(10)) request.release();
    const reason = new Error('closed');
    parent.abort(reason);
    expect(requests.slice(0, 10).map((request) => request.signal.reason)).toEqual(
      requests.slice(0, 10).map(() => reason),
    );
    // A released request goes its own way: the parent's abort no longer reaches it.
    expect(requests.slice(10).some((request) => request.signal.aborted)).toBe(false);
    for (const request of requests) request.release();
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it('under a parent already aborted, is aborted with its reason', () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    const request = requestSignal(parent.signal);
    expect(request.signal.aborted).toBe(true);
    expect(request.signal.reason).toBe(parent.signal.reason);
    request.release();
  });
});
