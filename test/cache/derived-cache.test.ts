import { describe, expect, it } from 'vitest';
import type { CountedBlock } from '../../src/budget/composable-attachment.js';
import type { BodyMeasure } from '../../src/budget/measure-body.js';
import { indexChunks } from '../../src/budget/truncate/chunk-index.js';
import { DerivedCache } from '../../src/cache/derived-cache.js';
import { ConverterRegistry } from '../../src/convert/converter-registry.js';
import { plainTextConverter } from '../../src/convert/converters/plain-text-converter.js';
import type { Conversion } from '../../src/convert/prepare-attachment.js';

const sha = 'ab'.repeat(32);

/** A measure of `count` tokens, complete or counted only that far. */
const measure = (count: number, complete: boolean): BodyMeasure => ({
  originalTokens: complete ? count : count * 10,
  estimated: !complete,
  head: { tokens: new Uint32Array(count), start: 0, end: count, complete },
});

/** A conversion of these sections (the converted resource is not looked at by the cache). */
const conversion = (sections: Conversion['sections']): Conversion =>
  ({ converted: { sections }, sections }) as unknown as Conversion;

const rendering = (text: string): CountedBlock =>
  ({ block: { kind: 'resource', text }, tokens: 1 }) as unknown as CountedBlock;

describe('DerivedCache', () => {
  it('keys a conversion by content hash and by which converters, down to their revision', () => {
    const cache = new DerivedCache();
    expect(cache.conversionKey(sha, undefined)).toBe(`${sha}:default`);
    const first = new ConverterRegistry();
    const second = new ConverterRegistry();
    const firstKey = cache.conversionKey(sha, first);
    expect(firstKey).toMatch(new RegExp(`^${sha}:\\d+\\.${first.revision}$`));
    expect(cache.conversionKey(sha, first)).toBe(firstKey);
    expect(new DerivedCache().conversionKey(sha, first)).toBe(firstKey);
    const secondKey = cache.conversionKey(sha, second);
    expect(secondKey).not.toBe(firstKey);
    expect(secondKey.replace(/:\d+\./, ':.')).toBe(firstKey.replace(/:\d+\./, ':.'));
    first.register(plainTextConverter);
    expect(cache.conversionKey(sha, first)).toBe(firstKey.replace(/\.\d+$/, `.${first.revision}`));
    expect(cache.conversionKey(sha, first)).not.toBe(firstKey);
  });

  it('keeps conversions, renderings, compositions and frame costs by key', () => {
    const cache = new DerivedCache();
    const converted = conversion([
      { kind: 'text', uri: 'x://a', mimeType: 'text/plain', bytes: 2, text: 'hi' },
    ]);
    cache.keepConversion('c', converted);
    const rendered = rendering('block');
    cache.keepRendering('r', rendered);
    const composed = { blocks: [{ text: 'turn' }] };
    cache.keepComposition('t', composed);
    const cost = { fullTokens: 10, truncatedOverheadTokens: 4, markerTokens: 3, briefMarkerTokens: 2 };
    cache.keepFrameCost('f', cost);
    expect(cache.conversion('c')).toBe(converted);
    expect(cache.rendering('r')).toBe(rendered);
    expect(cache.composition('t')).toBe(composed);
    expect(cache.frameCost('f')).toBe(cost);
    expect([
      cache.conversion('x'),
      cache.rendering('x'),
      cache.composition('x'),
      cache.frameCost('x'),
    ]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("bytesHeld: a conversion's text as V8 holds it (ASCII one byte a character, else two), media by its base64, an omitted item 64, token arrays by their bytes, renderings and compositions by their text at two bytes a character; each entry its key and 256 bytes more", async () => {
    const cache = new DerivedCache();
    expect(cache.bytesHeld).toBe(0);
    cache.keepConversion(
      'c',
      conversion([
        { kind: 'text', uri: 'x://a', mimeType: 'text/plain', bytes: 3, text: 'abc' },
        { kind: 'text', uri: 'x://d', mimeType: 'text/plain', bytes: 6, text: 'a🎉' },
        { kind: 'media', uri: 'x://b', mimeType: 'image/png', mediaKind: 'image', bytes: 3, data: 'AAAA' },
        { kind: 'omitted', uri: 'x://c', mimeType: 'application/zip', bytes: 9, reason: 'binary' },
      ]),
    );
    // 'a🎉' is three UTF-16 units, held at two bytes each.
    expect(cache.bytesHeld).toBe(3 + 6 + 4 + 64 + 1 + 256);
    await cache.measureOnce('m', 100, async () => measure(5, true));
    expect(cache.bytesHeld).toBe(334 + 20 + 1 + 256);
    cache.keepRendering('rr', rendering('hello'));
    expect(cache.bytesHeld).toBe(611 + 10 + 2 + 256);
    cache.keepComposition('key', { blocks: [{ text: 'ab' }, { text: 'cdé' }] });
    expect(cache.bytesHeld).toBe(879 + 10 + 3 + 256);
    cache.keepFrameCost('f', {
      fullTokens: 1,
      truncatedOverheadTokens: 1,
      markerTokens: 1,
      briefMarkerTokens: 1,
    });
    expect(cache.bytesHeld).toBe(1148);
  });

  it('empty things with empty keys still count their 256 bytes each', async () => {
    const cache = new DerivedCache();
    cache.keepConversion('', conversion([]));
    await cache.measureOnce('', 10, async () => measure(0, true));
    cache.keepRendering('', rendering(''));
    cache.keepComposition('', { blocks: [] });
    expect(cache.bytesHeld).toBe(4 * 256);
  });

  it('maxBytes bounds each kind: half for conversions, a quarter for token arrays, 3/32 for renderings and for compositions, an eighth of each on probation', async () => {
    const cache = new DerivedCache({ maxBytes: 32_000 });
    // Each entry: what it derives, its key, and 256 bytes.
    const media = (length: number) =>
      conversion([
        {
          kind: 'media',
          uri: 'x',
          mimeType: 'image/png',
          mediaKind: 'image',
          bytes: 1,
          data: 'x'.repeat(length),
        },
      ]);
    // Of 16,000 bytes of conversions, 14,000 are main: a pin's conversion of 14,000 bytes with
    // its key fits, 14,001 do not; a message attachment's waits on probation's 2,000.
    cache.keepConversion('fits', media(14_000 - 4 - 256));
    cache.keepConversion('over', media(14_001 - 4 - 256));
    cache.keepConversion('once', media(2_000 - 4 - 256), true);
    cache.keepConversion('once too large', media(2_001 - 14 - 256), true);
    expect(cache.bytesHeldByKind.conversions).toBe(14_000 + 2_000);
    expect([cache.conversion('fits') !== undefined, cache.conversion('over')]).toEqual([true, undefined]);
    // Of 8,000 bytes of token arrays, 7,000 are main: 1,685 tokens with the key's 4 and 256.
    await cache.measureOnce('fits', 2_000, async () => measure(1_685, true));
    await cache.measureOnce('over', 2_000, async () => measure(1_686, true));
    expect(cache.bytesHeld).toBe(14_000 + 2_000 + 7_000);
    // Used again, the message attachment's conversion moves to main, pushing out the one there.
    expect(cache.conversion('once')).toBeDefined();
    expect(cache.conversion('fits')).toBeUndefined();
    // Renderings start on probation (375 of their 3,000 bytes), at two bytes a character: 57
    // characters fit there. One of 1,182 does not: it is kept the second time, in main (2,625
    // bytes); 1,183 never are.
    cache.keepRendering('small', rendering('x'.repeat((375 - 5 - 256) / 2)));
    expect(cache.rendering('small')).toBeDefined();
    for (const [key, length] of [
      ['fits', 1_182],
      ['over', 1_183],
    ] as const) {
      cache.keepRendering(key, rendering('x'.repeat(length)));
      expect(cache.rendering(key)).toBeUndefined();
      cache.keepRendering(key, rendering('x'.repeat(length)));
    }
    expect([cache.rendering('fits') !== undefined, cache.rendering('over')]).toEqual([true, undefined]);
    // Compositions alike: their blocks' characters at two bytes, the key's and 256.
    for (const [key, length] of [
      ['k', 1_184],
      ['l', 1_185],
    ] as const) {
      cache.keepComposition(key, { blocks: [{ text: 'x'.repeat(length) }] });
      cache.keepComposition(key, { blocks: [{ text: 'x'.repeat(length) }] });
    }
    expect([cache.composition('k') !== undefined, cache.composition('l')]).toEqual([true, undefined]);
  });

  it('chunk indexes (relevant cuts) are kept by key and bounded by a sixteenth of maxBytes, least recently used first out', () => {
    const text = (word: string) =>
      Array.from({ length: 40 }, (_, line) => `${word} ${line} of the log`).join('\n');
    const one = indexChunks(text('alpha'), 0);
    // A sixteenth of maxBytes, of which seven eighths main: room for one index (with its key and
    // 256 bytes), not two.
    const entry = (index: { bytes: number }) => index.bytes + 1 + 256;
    const cache = new DerivedCache({ maxBytes: 16 * Math.ceil(((entry(one) + 8) * 8) / 7) });
    let builds = 0;
    const build = (word: string) => () => {
      builds++;
      return indexChunks(text(word), 0);
    };
    const first = cache.chunkIndex('a', build('alpha'));
    expect(cache.chunkIndex('a', build('alpha'))).toBe(first);
    expect(builds).toBe(1);
    expect(cache.bytesHeld).toBe(entry(first));
    // A second index does not fit beside the first: the first goes.
    cache.chunkIndex('b', build('gamma'));
    expect(builds).toBe(2);
    expect(cache.bytesHeld).toBeLessThanOrEqual(entry(one) + 8);
    cache.chunkIndex('a', build('alpha'));
    expect(builds).toBe(3);
  });

  it('the default bound is 48 MiB (1.5× a default 32 MiB content cache): a 21 MiB conversion (7/8 of the half) is kept, one byte more is not', () => {
    const cache = new DerivedCache();
    const data = 'x'.repeat(21 * 1024 * 1024 - 3 - 256);
    const media = (text: string) =>
      conversion([
        { kind: 'media', uri: 'x', mimeType: 'image/png', mediaKind: 'image', bytes: 1, data: text },
      ]);
    cache.keepConversion('big', media(`${data}x`));
    expect(cache.bytesHeld).toBe(0);
    cache.keepConversion('big', media(data));
    expect(cache.bytesHeld).toBe(21 * 1024 * 1024);
  });

  it('refuses a maxBytes that is not a positive integer, naming it', () => {
    for (const maxBytes of [0, -1, 0.5, Number.NaN]) {
      expect(() => new DerivedCache({ maxBytes })).toThrow(
        expect.objectContaining({ code: 'INVALID_OPTION', field: 'derived.maxBytes' }),
      );
    }
  });

  describe('admission', () => {
    const text = (length: number) => conversion([{ kind: 'text', text: 'x'.repeat(length) } as never]);

    it("a stream of message attachments' conversions and counts evicts no pin's", async () => {
      // Conversions: 16,000 bytes, 14,000 main, 2,000 on probation. Measures: 7,000 main, 1,000
      // on probation. Each entry: its text or tokens, its key and 256 bytes.
      const cache = new DerivedCache({ maxBytes: 32_000 });
      for (let pin = 0; pin < 7; pin++) {
        cache.keepConversion(`pin ${pin}`, text(2_000 - 5 - 256));
        await cache.measureOnce(`pin ${pin}`, 1000, async () => measure(184, true));
      }
      for (let once = 0; once < 100; once++) {
        cache.keepConversion(`once ${once}`, text(250), true);
        await cache.measureOnce(`once ${once}`, 1000, async () => measure(62, true), true);
      }
      // On probation, the last three conversions (250 + 7 + 256 bytes each) and the last count.
      expect(cache.bytesHeldByKind).toMatchObject({
        conversions: 7 * 2_000 + 3 * 513,
        measures: 7 * (4 * 184 + 5 + 256) + (4 * 62 + 7 + 256),
      });
      let counts = 0;
      for (let pin = 0; pin < 7; pin++) {
        expect(cache.conversion(`pin ${pin}`)).toBeDefined();
        await cache.measureOnce(`pin ${pin}`, 1000, async () => {
          counts++;
          return measure(184, true);
        });
      }
      expect(counts).toBe(0);
    });

    it("a message attachment's count looked up again in its turn (to count on) stays on probation; a later turn's lookup moves one to main", async () => {
      // Measures: 7,000 main, 1,000 on probation; a count of 40 tokens takes 160 + its key + 256.
      const cache = new DerivedCache({ maxBytes: 32_000 });
      const countedOn = async (key: string) => {
        await cache.measureOnce(key, 20, async () => measure(21, false), true);
        await cache.measureOnce(key, 40, async () => measure(41, false), true, true);
      };
      const others = async (from: number) => {
        for (let other = from; other < from + 10; other++)
          await cache.measureOnce(`other ${other}`, 20, async () => measure(21, false), true);
      };
      let counts = 0;
      const later = (key: string) =>
        cache.measureOnce(
          key,
          30,
          async () => {
            counts++;
            return measure(41, false);
          },
          true,
        );
      // Its turn counted it twice, then other attachments pushed it out of probation.
      await countedOn('once');
      await others(0);
      await later('once');
      expect(counts).toBe(1);
      // Found by a later turn, it moves to main, where other attachments do not reach it.
      await countedOn('twice');
      await later('twice');
      expect(counts).toBe(1);
      await others(10);
      await later('twice');
      expect(counts).toBe(1);
    });

    it('renderings and compositions start on probation: used once they stay within it, used again they move to main', () => {
      // Renderings and compositions: 6,000 bytes each, 750 on probation. 'repeated' takes 464
      // (its text at two bytes, its key, 256), each first turn's about 450: one fits on probation.
      const cache = new DerivedCache({ maxBytes: 64_000 });
      cache.keepRendering('repeated', rendering('r'.repeat(100)));
      cache.keepComposition('repeated', { blocks: [{ text: 'c'.repeat(100) }] });
      expect(cache.rendering('repeated')).toBeDefined();
      expect(cache.composition('repeated')).toBeDefined();
      for (let turn = 0; turn < 200; turn++) {
        cache.keepRendering(`first turn ${turn}`, rendering('r'.repeat(90)));
        cache.keepComposition(`first turn ${turn}`, { blocks: [{ text: 'c'.repeat(90) }] });
        expect(cache.bytesHeldByKind.renderings).toBeLessThanOrEqual(464 + 750);
        expect(cache.bytesHeldByKind.compositions).toBeLessThanOrEqual(464 + 750);
      }
      expect(cache.rendering('repeated')).toBeDefined();
      expect(cache.composition('repeated')).toBeDefined();
      expect(cache.rendering('first turn 0')).toBeUndefined();
      // Pushed out of probation unused, then kept again: its second keep enters main.
      cache.keepRendering('first turn 0', rendering('r'.repeat(90)));
      for (let turn = 200; turn < 220; turn++)
        cache.keepRendering(`first turn ${turn}`, rendering('r'.repeat(90)));
      expect(cache.rendering('first turn 0')).toBeDefined();
    });
  });

  describe('measureOnce', () => {
    it('concurrent callers of one key and limit share one count; a covering measure is served after', async () => {
      const cache = new DerivedCache();
      let counts = 0;
      const compute = async () => {
        counts++;
        return measure(5, false);
      };
      const [first, second] = await Promise.all([
        cache.measureOnce('k', 4, compute),
        cache.measureOnce('k', 4, compute),
      ]);
      expect(counts).toBe(1);
      expect(second).toBe(first);
      // Counted past 4 (5 tokens): covers every limit below 5, not 5 itself.
      expect(await cache.measureOnce('k', 3, compute)).toBe(first);
      expect(counts).toBe(1);
      await cache.measureOnce('k', 5, compute);
      expect(counts).toBe(2);
    });

    it('concurrent counts of other keys or other limits are their own', async () => {
      const cache = new DerivedCache();
      const [a, b, wider] = await Promise.all([
        cache.measureOnce('a', 4, async () => measure(5, false)),
        cache.measureOnce('b', 4, async () => measure(7, false)),
        cache.measureOnce('a', 6, async () => measure(8, false)),
      ]);
      expect([a.head.tokens.length, b.head.tokens.length, wider.head.tokens.length]).toEqual([5, 7, 8]);
    });

    it('a finished count is not answered again once its measure has been evicted', async () => {
      // Measures get a quarter of 800 bytes, 175 of them main: 43 tokens of 4 bytes.
      const cache = new DerivedCache({ maxBytes: 800 });
      let counts = 0;
      const first = await cache.measureOnce('a', 10, async () => {
        counts++;
        return measure(20, true);
      });
      await cache.measureOnce('b', 10, async () => measure(30, true));
      const again = await cache.measureOnce('a', 10, async () => {
        counts++;
        return measure(20, true);
      });
      expect(counts).toBe(2);
      expect(again).not.toBe(first);
    });

    it('a complete measure covers any limit', async () => {
      const cache = new DerivedCache();
      let counts = 0;
      const complete = await cache.measureOnce('k', 100, async () => {
        counts++;
        return measure(5, true);
      });
      expect(await cache.measureOnce('k', 2, async () => measure(0, false))).toBe(complete);
      expect(counts).toBe(1);
    });

    it('a failed count is thrown to its callers and tried again by the next', async () => {
      const cache = new DerivedCache();
      const failing = Promise.all([
        cache.measureOnce('k', 4, async () => Promise.reject(new Error('tokenizer gone'))),
        cache.measureOnce('k', 4, async () => measure(9, true)),
      ]);
      await expect(failing).rejects.toThrow('tokenizer gone');
      const again = await cache.measureOnce('k', 4, async () => measure(9, true));
      expect(again.head.tokens.length).toBe(9);
    });

    it('a later, shorter count does not replace a longer one; a longer one does', async () => {
      const cache = new DerivedCache();
      const long = await cache.measureOnce('k', 20, async () => measure(21, false));
      const short = await cache.measureOnce('k', 30, async () => measure(21, false));
      expect(short).not.toBe(long);
      expect(await cache.measureOnce('k', 20, async () => measure(0, false))).toBe(long);
      const longer = await cache.measureOnce('k', 40, async () => measure(41, false));
      expect(await cache.measureOnce('k', 40 - 1, async () => measure(0, false))).toBe(longer);
      // A complete one is never replaced.
      const complete = await cache.measureOnce('c', 100, async () => measure(3, true));
      await cache.measureOnce('c', 100, async () => measure(50, false));
      expect(await cache.measureOnce('c', 2, async () => measure(0, false))).toBe(complete);
    });
  });
});
