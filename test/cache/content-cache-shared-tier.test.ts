import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ContentCache } from '../../src/cache/content-cache.js';
import type { SharedTier } from '../../src/cache/shared-tier.js';
import { body, textOf } from './read-results.js';
import { scriptedTier } from './scripted-tier.js';

describe('ContentCache with a shared tier', () => {
  it("a local miss served by the fleet's copy: no read, kept locally, said so", async () => {
    const fleet = scriptedTier();
    const content = {
      result: body('from the fleet'),
      sha256: 'f'.repeat(64),
      bytes: 14,
      fetchedAt: Date.now(),
    };
    fleet.answer(() => ({ kind: 'hit', content }));
    const cache = new ContentCache({ shared: fleet.tier });
    let reads = 0;
    const read = async () => {
      reads++;
      return body('own');
    };
    const first = await cache.read({ server: 's', uri: 'x://a', principal: 'alice' }, read);
    expect(first).toEqual({ content, cache: 'miss', shared: 'hit' });
    expect(reads).toBe(0);
    expect(fleet.calls).toEqual(['lookup s x://a alice']);
    const second = await cache.read({ server: 's', uri: 'x://a', principal: 'alice' }, read);
    expect(second.cache).toBe('hit');
    expect(second.content).toMatchObject(content);
    expect(reads).toBe(0);
  });

  it('the lease: this replica reads and fills the fleet', async () => {
    const fleet = scriptedTier();
    fleet.answer(fleet.lead);
    const cache = new ContentCache({ shared: fleet.tier });
    const result = await cache.read({ server: 's', uri: 'x://a' }, async () => body('mine'));
    expect(result).toMatchObject({ cache: 'miss', shared: 'miss' });
    expect(fleet.calls).toEqual(['lookup s x://a -', 'fill']);
    expect(fleet.filled).toEqual([result.content]);
    expect(textOf(result.content.result)).toBe('mine');
  });

  it('the lease, and the read fails: the lease is released, nothing filled', async () => {
    const fleet = scriptedTier();
    fleet.answer(fleet.lead);
    const cache = new ContentCache({ shared: fleet.tier });
    await expect(
      cache.read({ server: 's', uri: 'x://a' }, async () => Promise.reject(new Error('down'))),
    ).rejects.toThrow('down');
    expect(fleet.calls).toEqual(['lookup s x://a -', 'release']);
  });

  it('the lease, and an invalidation lands during the read: released, not filled, not kept', async () => {
    const fleet = scriptedTier();
    fleet.answer(fleet.lead);
    const cache = new ContentCache({ shared: fleet.tier });
    let finish: (result: ReadResourceResult) => void = () => {};
    const reading = cache.read(
      { server: 's', uri: 'x://a' },
      () =>
        new Promise((resolve) => {
          finish = resolve;
        }),
    );
    await expect.poll(() => fleet.calls).toEqual(['lookup s x://a -']);
    cache.invalidateResource('s', 'x://a');
    finish(body('old'));
    expect((await reading).shared).toBe('miss');
    expect(fleet.calls).toEqual(['lookup s x://a -', 'release']);
    expect(cache.metrics.entries).toBe(0);
  });

  it('the fleet unavailable or slow: read alone, and say why', async () => {
    const fleet = scriptedTier();
    fleet.answer(() => ({ kind: 'alone', reason: 'wait-timeout' }));
    const cache = new ContentCache({ shared: fleet.tier });
    const result = await cache.read({ server: 's', uri: 'x://a' }, async () => body('alone'));
    expect(result).toMatchObject({ cache: 'miss', shared: 'wait-timeout' });
    expect(textOf(result.content.result)).toBe('alone');
  });

  it('a bypass does not ask the fleet', async () => {
    const fleet = scriptedTier();
    const cache = new ContentCache({ shared: fleet.tier });
    const result = await cache.read({ server: 's', uri: 'x://a', bypass: true }, async () => body('direct'));
    expect(result).toEqual({ content: result.content, cache: 'bypass' });
    expect(fleet.calls).toEqual([]);
  });

  it('what this replica hears is published to the fleet', () => {
    const fleet = scriptedTier();
    const cache = new ContentCache({ shared: fleet.tier });
    cache.invalidateResource('s', 'x://a');
    cache.invalidateServer('s');
    cache.markServerStale('s');
    expect(fleet.published).toEqual([
      { kind: 'updated', server: 's', uri: 'x://a' },
      { kind: 'list-changed', server: 's' },
      { kind: 'session-closed', server: 's' },
    ]);
  });

  it('what other replicas heard is applied here, and not published again', async () => {
    const fleet = scriptedTier();
    const cache = new ContentCache({ shared: fleet.tier });
    const events: unknown[] = [];
    cache.on('cache-invalidated', (event) => events.push(event));
    for (const uri of ['x://a', 'x://b']) await cache.read({ server: 's', uri }, async () => body(uri));
    await cache.read({ server: 't', uri: 'x://a' }, async () => body('t'));
    fleet.hear({ kind: 'updated', server: 's', uri: 'x://a' });
    fleet.hear({ kind: 'session-closed', server: 't' });
    fleet.hear({ kind: 'list-changed', server: 's' });
    fleet.hear({ kind: 'all-stale', reason: 'the bus reconnected' });
    expect(events).toEqual([
      { server: 's', uri: 'x://a', reason: 'resource updated (from another replica)', entries: 1 },
      { server: 't', reason: 'session closed (from another replica)', entries: 1 },
      { server: 's', reason: 'resource list changed (from another replica)', entries: 1 },
      { server: 's', reason: 'the bus reconnected', entries: 0 },
      { server: 't', reason: 'the bus reconnected', entries: 0 },
    ]);
    expect(fleet.published).toEqual([]);
    expect(cache.metrics.invalidations).toBe(5);
  });

  it('dispose stops listening to the fleet; the entries stay', async () => {
    const fleet = scriptedTier();
    const cache = new ContentCache({ shared: fleet.tier });
    await cache.read({ server: 's', uri: 'x://a' }, async () => body('a'));
    cache.dispose();
    expect(fleet.listeners.size).toBe(0);
    expect(cache.metrics.entries).toBe(1);
  });

  it('refuses a shared tier without its methods, naming the field', () => {
    expect(() => new ContentCache({ shared: { lookup: () => {} } as unknown as SharedTier })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', field: 'cache.shared' }),
    );
    expect(() => new ContentCache({ shared: null as unknown as SharedTier })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', field: 'cache.shared' }),
    );
  });
});
