import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { LRUCache } from 'lru-cache';
import { describe, expect, it, onTestFinished } from 'vitest';
import { getQuietly } from '../../src/cache/get-quietly.js';

describe('getQuietly', () => {
  it('gets as get does: the value, and the entry becomes the most recently used', () => {
    const cache = new LRUCache<string, string>({ max: 2 });
    cache.set('a', 'A');
    cache.set('b', 'B');
    expect(getQuietly(cache, 'a')).toBe('A');
    expect(getQuietly(cache, 'missing')).toBeUndefined();
    cache.set('c', 'C');
    expect([...cache.keys()].sort()).toEqual(['a', 'c']);
  });

  it("gives each get its own status on lru-cache's diagnostics channel: nothing carries over from the last get", () => {
    const cache = new LRUCache<string, string>({ max: 2 });
    cache.set('a', 'A');
    const published: Record<string, unknown>[] = [];
    const listener = (message: unknown) => published.push(message as Record<string, unknown>);
    subscribe('lru-cache:metrics', listener);
    onTestFinished(() => {
      unsubscribe('lru-cache:metrics', listener);
    });
    getQuietly(cache, 'a');
    getQuietly(cache, 'missing');
    const gets = published.filter((status) => status.op === 'get');
    expect(gets).toHaveLength(2);
    expect(gets[0]).not.toBe(gets[1]);
    expect(gets[0]).toMatchObject({ key: 'a', get: 'hit', value: 'A' });
    expect(gets[1]).toMatchObject({ key: 'missing', get: 'miss' });
    expect(gets[1]).not.toHaveProperty('value');
  });
});
