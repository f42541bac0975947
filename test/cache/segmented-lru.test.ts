import { describe, expect, it } from 'vitest';
import { SegmentedLru } from '../../src/cache/segmented-lru.js';

interface Value {
  readonly bytes: number;
}

type Disposed = [key: string, reason: string];

/** Main holds 900 bytes, probation 100: a 60-byte value fits either, a 200-byte one only main. */
function segmented(probationMaxSize = 100) {
  const disposed: Disposed[] = [];
  const lru = new SegmentedLru<Value>({
    maxSize: 1_000,
    probationMaxSize,
    sizeCalculation: (value) => value.bytes,
    dispose: (_value, key, reason) => disposed.push([key, reason]),
  });
  return { lru, disposed };
}

describe('SegmentedLru', () => {
  it('remembers only what probation evicted: a key deleted from it enters probation again', () => {
    const { lru } = segmented();
    expect(lru.set('a', { bytes: 60 }, true)).toBe('probation');
    expect(lru.delete('a')).toBe(true);
    // Deleted (an invalidation), not pushed out for room: its next read is not its second use.
    expect(lru.set('a', { bytes: 60 }, true)).toBe('probation');
    // Pushed out for room by 'b': remembered, so setting it again admits it to main.
    expect(lru.set('b', { bytes: 60 }, true)).toBe('probation');
    expect(lru.peek('a')).toBeUndefined();
    expect(lru.set('a', { bytes: 60 }, true)).toBe('main');
  });

  it('drops the probation copy of a key whose new value is too large for probation', () => {
    const { lru, disposed } = segmented();
    lru.set('a', { bytes: 60 }, true);
    expect(lru.set('a', { bytes: 200 }, true)).toBe('remembered');
    // The old copy is not served in place of the value that was not kept.
    expect(lru.peek('a')).toBeUndefined();
    expect(disposed).toEqual([['a', 'delete']]);
    // Its key was remembered: set again, it enters main.
    expect(lru.set('a', { bytes: 200 }, true)).toBe('main');
    expect(lru.peek('a')).toEqual({ bytes: 200 });
  });

  it('says whether delete removed anything, from either segment or none', () => {
    const { lru } = segmented();
    lru.set('held on probation', { bytes: 60 }, true);
    lru.set('held in main', { bytes: 60 }, false);
    expect(lru.delete('held on probation')).toBe(true);
    expect(lru.delete('held in main')).toBe(true);
    expect(lru.delete('held on probation')).toBe(false);
    expect(lru.delete('never held')).toBe(false);
    const plain = segmented(0).lru;
    expect(plain.set('a', { bytes: 60 }, true)).toBe('main');
    expect(plain.delete('never held')).toBe(false);
    expect(plain.delete('a')).toBe(true);
  });

  it('disposes of a promoted value again once it leaves probation under another key', () => {
    const { lru, disposed } = segmented();
    const value = { bytes: 60 };
    lru.set('a', value, true);
    // Promoted: leaving probation for main is not a disposal.
    expect(lru.get('a')).toBe(value);
    expect(lru.promotions).toBe(1);
    expect(disposed).toEqual([]);
    lru.set('b', value, true);
    expect(lru.delete('b')).toBe(true);
    expect(disposed).toEqual([['b', 'delete']]);
  });
});
