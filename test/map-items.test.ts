import { describe, expect, it } from 'vitest';
import { mapItems } from '../src/map-items.js';

describe('mapItems', () => {
  it('answers what Array.prototype.map answers, each item with its index, in order', () => {
    const seen: string[] = [];
    const items = ['a', 'b', 'c'];
    const mapped = mapItems(items, (item, index) => {
      seen.push(`${index}:${item}`);
      return { item, index };
    });
    expect(mapped).toEqual(items.map((item, index) => ({ item, index })));
    expect(seen).toEqual(['0:a', '1:b', '2:c']);
  });

  it('answers a new array with no holes, empty for no items', () => {
    const items = [1, 2];
    const mapped = mapItems(items, (item) => item * 10);
    expect(mapped).not.toBe(items);
    expect(mapped).toEqual([10, 20]);
    expect(Object.keys(mapped)).toEqual(['0', '1']);
    expect(mapItems([], () => 1)).toEqual([]);
  });
});
