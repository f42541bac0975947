import { describe, expect, it, onTestFinished } from 'vitest';
import { ContentCache, type ReadRequest } from '../../src/cache/content-cache.js';
import { ConverterRegistry } from '../../src/convert/converter-registry.js';
import { plainTextConverter } from '../../src/convert/converters/plain-text-converter.js';
import { startControlledServer } from '../support/controlled-server.js';
import { startProviderHarness } from '../support/provider-harness.js';
import { body } from './read-results.js';

// Each read below holds 512 bytes of text and 512 of overhead: 1 KiB.
const text = 'x'.repeat(512);
const kib = 1024;

/** A cache of 16 KiB: 14 KiB of main LRU, 2 KiB (two reads) on probation. */
function smallCache() {
  return new ContentCache({ maxBytes: 16 * kib, probationMaxBytes: 2 * kib });
}

async function readOnce(cache: ContentCache, request: ReadRequest) {
  return (await cache.read(request, async () => body(text))).cache;
}

const pin = (index: number): ReadRequest => ({ server: 's', uri: `x://pin/${index}` });
const oneOff = (index: number): ReadRequest => ({
  server: 's',
  uri: `x://message/${index}`,
  probation: true,
});

describe('ContentCache admission: reads on probation', () => {
  it('a stream of one-off reads on probation evicts no pin, and probation holds at most its bytes', async () => {
    const cache = smallCache();
    for (let index = 0; index < 14; index++) await readOnce(cache, pin(index));
    expect(cache.metrics).toMatchObject({ entries: 14, bytesHeld: 14 * kib, evictions: 0 });
    for (let index = 0; index < 200; index++) {
      expect(await readOnce(cache, oneOff(index))).toBe('miss');
      expect(cache.metrics.probationBytesHeld).toBeLessThanOrEqual(2 * kib);
      expect(cache.metrics.bytesHeld).toBeLessThanOrEqual(16 * kib);
    }
    // Only one-offs went: every pin is still a hit, and the last two one-offs are held.
    expect(cache.metrics).toMatchObject({ evictions: 198, probationBytesHeld: 2 * kib, entries: 16 });
    for (let index = 0; index < 14; index++) expect(await readOnce(cache, pin(index))).toBe('hit');
    expect(cache.metrics.promotions).toBe(0);
  });

  it('a read found on probation moves to the main LRU: later one-offs no longer push it out', async () => {
    const cache = smallCache();
    await readOnce(cache, oneOff(0));
    const first = cache.peek(oneOff(0))?.content;
    expect(first).toBeDefined();
    expect(cache.metrics).toMatchObject({ promotions: 1, probationBytesHeld: 0 });
    const retirements = cache.retirements;
    for (let index = 1; index < 50; index++) await readOnce(cache, oneOff(index));
    // The same copy, still what a kept turn holds: moving it retired nothing.
    expect(cache.peek(oneOff(0))?.content).toBe(first);
    expect(cache.stillFresh(first ? [first] : [])).toBe(true);
    expect(cache.retirements - retirements).toBe(47);
  });

  it('a key pushed out of probation unread enters the main LRU when read again', async () => {
    const cache = smallCache();
    await readOnce(cache, oneOff(0));
    await readOnce(cache, oneOff(1));
    await readOnce(cache, oneOff(2));
    expect(await readOnce(cache, oneOff(0))).toBe('miss');
    expect(cache.metrics.promotions).toBe(1);
    for (let index = 3; index < 50; index++) await readOnce(cache, oneOff(index));
    expect(await readOnce(cache, oneOff(0))).toBe('hit');
  });

  it('main content still evicts main content, least recently used first, within maxBytes less probation', async () => {
    const cache = smallCache();
    await readOnce(cache, oneOff(0));
    for (let index = 0; index < 15; index++) await readOnce(cache, pin(index));
    expect(cache.metrics).toMatchObject({ evictions: 1, bytesHeld: 15 * kib, probationBytesHeld: kib });
    expect(await readOnce(cache, pin(0))).toBe('miss');
    expect(await readOnce(cache, oneOff(0))).toBe('hit');
  });

  it('a read too large for probation is not kept the first time, and kept in the main LRU the second', async () => {
    const cache = smallCache();
    const large = async () => body('y'.repeat(3 * kib));
    await cache.read(oneOff(0), large);
    expect(cache.metrics).toMatchObject({ entries: 0, tooLargeToCache: 1 });
    await cache.read(oneOff(0), large);
    expect(cache.metrics).toMatchObject({ entries: 1, tooLargeToCache: 1, promotions: 1 });
    for (let index = 1; index < 20; index++) await readOnce(cache, oneOff(index));
    expect((await cache.read(oneOff(0), large)).cache).toBe('hit');
  });

  it("a pin's copy read again on probation (after its TTL) stays in the main LRU", async () => {
    const cache = new ContentCache({ maxBytes: 16 * kib, probationMaxBytes: 2 * kib, ttlMs: 0 });
    await readOnce(cache, pin(0));
    await readOnce(cache, { ...pin(0), probation: true });
    expect(cache.metrics).toMatchObject({ entries: 1, probationBytesHeld: 0 });
  });

  it('invalidations and stale marks reach copies on probation; a copy on probation serves stale on error', async () => {
    const cache = smallCache();
    await readOnce(cache, oneOff(0));
    await readOnce(cache, oneOff(1));
    cache.invalidateResource('s', 'x://message/0');
    expect(cache.metrics).toMatchObject({ entries: 1, probationBytesHeld: kib });
    cache.markServerStale('s');
    const failing = async () => Promise.reject(new Error('down'));
    expect((await cache.read(oneOff(1), failing)).cache).toBe('stale');
    cache.invalidateServer('s');
    expect(cache.metrics).toMatchObject({ entries: 0, bytesHeld: 0 });
    await readOnce(cache, oneOff(2));
    cache.clear();
    expect(cache.metrics).toMatchObject({ entries: 0, probationBytesHeld: 0 });
  });

  it('by default an eighth of maxBytes is probation; 0 turns admission off; more than half is refused', async () => {
    expect(new ContentCache().probationMaxBytes).toBe(4 * 1024 * 1024);
    expect(new ContentCache({ maxBytes: 16 * kib }).probationMaxBytes).toBe(2 * kib);
    const plain = new ContentCache({ maxBytes: 16 * kib, probationMaxBytes: 0 });
    for (let index = 0; index < 16; index++) await readOnce(plain, oneOff(index));
    expect(plain.metrics).toMatchObject({ entries: 16, probationBytesHeld: 0, evictions: 0 });
    expect(() => new ContentCache({ maxBytes: 16 * kib, probationMaxBytes: 8 * kib + 1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', field: 'cache.probationMaxBytes' }),
    );
  });
});

describe('a provider admits message attachments on probation', () => {
  it("a new message attachment every turn pushes neither the pins' content nor their conversions out", async () => {
    const pins = Array.from({ length: 6 }, (_, index) => `doc://pin/${index}`);
    const initial = Object.fromEntries(
      pins.map((uri) => [uri, [{ uri, mimeType: 'text/plain', text: `${uri} ${'p'.repeat(1000)}` }]]),
    );
    const server = startControlledServer(initial);
    onTestFinished(async () => {
      await server.close();
    });
    const conversions = new Map<string, number>();
    const converters = new ConverterRegistry().register({
      ...plainTextConverter,
      convert: (input) => {
        conversions.set(input.uri, (conversions.get(input.uri) ?? 0) + 1);
        return plainTextConverter.convert(input);
      },
    });
    // 10 KiB of main LRU holds the six pins (~1.5 KiB each, overhead included) and not one
    // attachment more; 2 KiB of probation holds one attachment. Conversions (~2 KiB each, UTF-16):
    // 18 KiB, 2.25 KiB of them on probation.
    const { provider, attachments } = await startProviderHarness('memory', {
      extraServers: { controlled: server.serverConfig },
      provider: {
        converters,
        cache: { maxBytes: 12 * kib, probationMaxBytes: 2 * kib, derivedMaxBytes: 36 * kib },
      },
    });
    for (const uri of pins)
      await attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri });
    for (let turn = 0; turn < 12; turn++) {
      const uri = `doc://message/${turn}`;
      server.setText(uri, `${uri} ${'m'.repeat(1000)}`);
      const { trace } = await provider.provide({
        pipelineId: 'support',
        conversationId: 'c-1',
        message: { attachments: [{ server: 'controlled', uri }] },
      });
      const pinned = trace.entries.filter((entry) => entry.uri.startsWith('doc://pin/'));
      expect(pinned.map((entry) => entry.cache)).toEqual(pins.map(() => (turn === 0 ? 'miss' : 'hit')));
    }
    for (const uri of pins) expect([server.readCount(uri), conversions.get(uri)]).toEqual([1, 1]);
    expect(provider.metrics?.probationBytesHeld).toBeGreaterThan(0);
    expect(provider.metrics?.promotions).toBe(0);
  });
});
