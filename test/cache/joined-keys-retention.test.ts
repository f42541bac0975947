import { describe, expect, it } from 'vitest';
import { DerivedCache } from '../../src/cache/derived-cache.js';
import { SegmentedLru } from '../../src/cache/segmented-lru.js';
import { liveHeap } from '../faults/fault-harness.js';

const mebibyte = 1024 * 1024;
const bodies = 40;

/** A key joined from parts, one of them cut from a distinct body of 1 MiB (a view of it in V8). */
function joinedKey(index: number): string {
  const body = `${index} `.padEnd(mebibyte, 'lorem ipsum dolor sit amet, ');
  return `key|${index}|${body.slice(2, 60)}`;
}

// A key joined from parts is a tree of them in V8, and a part cut from a body holds the whole
// body: a cache that kept such a key as it came would keep the body alive with it.
describe('what the derived caches keep of a key joined from parts', () => {
  it('a segmented LRU keeps a string of its own, not the parts its key was joined from', () => {
    const lru = new SegmentedLru<{ readonly index: number }>({
      maxSize: 64 * mebibyte,
      probationMaxSize: 8 * mebibyte,
      sizeCalculation: () => 1,
    });
    const before = liveHeap();
    for (let index = 0; index < bodies; index++) lru.set(joinedKey(index), { index }, index % 2 === 0);
    const grown = liveHeap() - before;
    expect(lru.peek(joinedKey(3))).toEqual({ index: 3 });
    // Kept: 40 keys of under 80 characters. Held alive, the bodies would be 40 MiB.
    expect(grown).toBeLessThan(8 * mebibyte);
  });

  it('frame costs keep strings of their own as keys', () => {
    const derived = new DerivedCache();
    const cost = { fullTokens: 1, truncatedOverheadTokens: 1, markerTokens: 1, briefMarkerTokens: 1 };
    const before = liveHeap();
    for (let index = 0; index < bodies; index++) derived.keepFrameCost(joinedKey(index), cost);
    const grown = liveHeap() - before;
    expect(derived.frameCost(joinedKey(7))).toBe(cost);
    expect(grown).toBeLessThan(8 * mebibyte);
  });
});
