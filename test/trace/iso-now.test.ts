import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoNow } from '../../src/trace/iso-now.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('isoNow', () => {
  it("is the current millisecond's ISO 8601 time, formatted again only when the millisecond changes", () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 11, 2, 12, 0, 0, 5) });
    const first = isoNow();
    expect(first).toBe('2026-12-02T12:00:00.005Z');
    const toISOString = vi.spyOn(Date.prototype, 'toISOString');
    expect(isoNow()).toBe(first);
    expect(toISOString).not.toHaveBeenCalled();
    vi.setSystemTime(Date.UTC(2026, 11, 2, 12, 0, 0, 6));
    expect(isoNow()).toBe('2026-12-02T12:00:00.006Z');
    expect(toISOString).toHaveBeenCalledTimes(1);
  });
});
