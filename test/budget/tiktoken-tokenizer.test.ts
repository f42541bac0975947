import { createRequire, syncBuiltinESMExports } from 'node:module';
import { get_encoding, Tiktoken } from 'tiktoken';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { OrdinaryEncoder } from '../../src/budget/encode-ordinary.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';

const tokenizer = createTiktokenTokenizer();
const reference = get_encoding('o200k_base');
afterAll(() => reference.free());
// 100 lines of 45 characters, 10 tokens each: long enough for the hashed count cache (≥ 1024).
const lines = 'The quick brown fox jumps over the lazy dog.\n'.repeat(100);
// The builtin's own exports object: a spy set on it reaches named imports once synced.
const crypto = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
afterAll(() => tokenizer.dispose());

/** A spy on a real method (it calls through), removed when the test finishes. */
function spyForThisTest(target: object, name: string) {
  const spy = vi.spyOn(target as Record<string, (...args: unknown[]) => unknown>, name);
  onTestFinished(() => spy.mockRestore());
  return spy;
}

describe('createTiktokenTokenizer', () => {
  it('encodes in JavaScript by default, and with tiktoken’s WASM when its piece cache is off', async () => {
    const javaScript = spyForThisTest(OrdinaryEncoder.prototype, 'encode');
    const wasm = spyForThisTest(Tiktoken.prototype, 'encode_ordinary');
    const text = `${lines}日本語 🎉 it'ſ <|endoftext|>`;
    const expected = [...reference.encode_ordinary(text)];
    wasm.mockClear();
    const byDefault = createTiktokenTokenizer();
    onTestFinished(() => byDefault.dispose());
    expect([...(await byDefault.encode(text))]).toEqual(expected);
    expect([javaScript.mock.calls.length > 0, wasm.mock.calls.length]).toEqual([true, 0]);

    javaScript.mockClear();
    const withoutCache = createTiktokenTokenizer({ pieceCacheEntries: 0 });
    onTestFinished(() => withoutCache.dispose());
    expect([...(await withoutCache.encode(text))]).toEqual(expected);
    expect(await withoutCache.count(text)).toBe(expected.length);
    expect([javaScript.mock.calls.length, wasm.mock.calls.length > 0]).toEqual([0, true]);
  });

  it('encodes with tiktoken’s WASM on a Node whose Unicode tables are not tiktoken’s (16.0 or 17.0)', async () => {
    // The module reads process.versions.unicode once, when loaded: a fresh copy under 15.1.
    const unicode = Object.getOwnPropertyDescriptor(process.versions, 'unicode');
    if (!unicode) throw new Error('this Node names its Unicode version');
    Object.defineProperty(process.versions, 'unicode', { ...unicode, value: '15.1' });
    onTestFinished(() => {
      Object.defineProperty(process.versions, 'unicode', unicode);
    });
    vi.resetModules();
    const fresh = await import('../../src/budget/tiktoken-tokenizer.js');
    const { OrdinaryEncoder: FreshEncoder } = await import('../../src/budget/encode-ordinary.js');
    const javaScript = spyForThisTest(FreshEncoder.prototype, 'encode');
    const wasm = spyForThisTest(Tiktoken.prototype, 'encode_ordinary');
    const elsewhere = fresh.createTiktokenTokenizer();
    onTestFinished(() => elsewhere.dispose());
    const text = `${lines}日本語 🎉`;
    expect([...(await elsewhere.encode(text))]).toEqual([...reference.encode_ordinary(text)]);
    expect([javaScript.mock.calls.length, wasm.mock.calls.length > 0]).toEqual([0, true]);
  });

  it('hands the JavaScript encoder a chunk with a long run whole: it is linear, so no guard splits it', async () => {
    const encodeOrdinary = spyForThisTest(OrdinaryEncoder.prototype, 'encode');
    const own = createTiktokenTokenizer();
    onTestFinished(() => own.dispose());
    // A run of 2,000 letters between words: tiktoken's WASM would get the words around it in
    // calls of their own and the run would go to the heap merge (encode-guarded.ts).
    const text = `before ${'x'.repeat(2000)} after`;
    expect([...(await own.encode(text))]).toEqual([...reference.encode_ordinary(text)]);
    expect(encodeOrdinary.mock.calls.map(([given]) => given)).toEqual([text]);
  });

  it('hands tiktoken’s WASM the text around a long run, and the run to the byte-pair encoder; decodes with it too', async () => {
    // tiktoken's own merge is quadratic in a piece's length: with the piece cache off (WASM
    // encodes), a run of 2,000 letters must never reach it (encode-guarded.ts).
    const wasm = spyForThisTest(Tiktoken.prototype, 'encode_ordinary');
    const wasmDecode = spyForThisTest(Tiktoken.prototype, 'decode');
    const own = createTiktokenTokenizer({ pieceCacheEntries: 0 });
    onTestFinished(() => own.dispose());
    const text = `before ${'x'.repeat(2000)} after`;
    const expected = [...reference.encode_ordinary(text)];
    wasm.mockClear();
    const tokens = await own.encode(text);
    expect(wasm.mock.calls.map(([given]) => given)).toEqual(['before', ' after']);
    expect([...tokens]).toEqual(expected);
    expect(own.decode(tokens)).toBe(text);
    expect(wasmDecode).toHaveBeenCalledTimes(1);
  });

  it('finds a long run that mixes ASCII letters with others, in a fresh copy of the modules (the run pattern is built when they load)', async () => {
    vi.resetModules();
    const fresh = await import('../../src/budget/tiktoken-tokenizer.js');
    const wasm = spyForThisTest(Tiktoken.prototype, 'encode_ordinary');
    const own = fresh.createTiktokenTokenizer({ pieceCacheEntries: 0 });
    onTestFinished(() => own.dispose());
    // One piece of 2,000 letters, every other one above U+0084 (where the scan looks whitespace up).
    const text = `before ${'aé'.repeat(1000)} after`;
    const expected = [...reference.encode_ordinary(text)];
    wasm.mockClear();
    expect([...(await own.encode(text))]).toEqual(expected);
    expect(wasm.mock.calls.map(([given]) => given)).toEqual(['before', ' after']);
  });

  it('forgets a count that failed: the next count of the text counts it again', async () => {
    const counting = createTiktokenTokenizer();
    onTestFinished(() => counting.dispose());
    const encodeOrdinary = spyForThisTest(OrdinaryEncoder.prototype, 'encode');
    encodeOrdinary.mockImplementationOnce(() => {
      throw new Error('encoder failed');
    });
    await expect(counting.count(lines)).rejects.toThrow('encoder failed');
    expect(await counting.count(lines)).toBe(1000);
  });

  it('counts special-token strings inside content as plain text: 9 tokens, not the 4 of a special token', async () => {
    const text = 'before <|endoftext|> after';
    // o200k_base as plain text: "before", " <", "|", "end", "of", "text", "|", ">", " after" (9);
    // with special tokens allowed, <|endoftext|> would be one token and the whole 4.
    expect(await tokenizer.count(text)).toBe(9);
    expect(await tokenizer.encode(text)).toHaveLength(9);
    expect((await tokenizer.encodeWithin?.(text, 100, 'start'))?.tokens).toHaveLength(9);
    expect(tokenizer.decode(await tokenizer.encode(text))).toBe(text);
    // A long text goes through the chunked, cached path: plain text there too (2004 if special).
    expect(await tokenizer.count(`${'word '.repeat(2000)}${text}`)).toBe(2009);
  });

  it('decodes a prefix that ends inside a multi-byte character without garbage', async () => {
    const tokens = await tokenizer.encode('日本語のテキスト🎉🎉🎉');
    for (let length = 0; length <= tokens.length; length++) {
      expect(tokenizer.decode(tokens.subarray(0, length))).not.toContain('\uFFFD');
    }
  });

  it('shares one WASM encoder: a second tokenizer of the same encoding is ready at once and counts the same', async () => {
    // Only a tokenizer that encodes with tiktoken's WASM shares an encoder (the piece cache off);
    // the JavaScript one shares only the vocabulary (vocabulary-of.test.ts).
    const wasm = { pieceCacheEntries: 0 } as const;
    const first = createTiktokenTokenizer(wasm);
    onTestFinished(() => first.dispose());
    const second = createTiktokenTokenizer(wasm);
    expect(await second.count('hello world')).toBe(await first.count('hello world'));
    second.dispose();
    // Disposing one user must not free the encoder the other still uses.
    expect(await first.count('still works')).toBe(2);
  });

  it('a bounded encoding reports the whole count it knows, and hashes its text only when a text of that length was counted', async () => {
    const counting = createTiktokenTokenizer({ countCacheEntries: 1 });
    onTestFinished(() => counting.dispose());
    // The module imports createHash by name: the spy reaches it through the synced builtin.
    const createHash = vi.spyOn(crypto, 'createHash');
    syncBuiltinESMExports();
    onTestFinished(() => {
      createHash.mockRestore();
      syncBuiltinESMExports();
    });
    const body = 'The quick brown fox jumps over the lazy dog.\n'.repeat(100);
    const within = (text: string) => counting.encodeWithin?.(text, 10, 'start');

    // Nothing of its length was ever counted: no hash, no known count (not even as a key).
    expect(await within(body)).not.toHaveProperty('knownCount');
    expect(createHash).not.toHaveBeenCalled();
    // Texts under 1,024 characters are counted and kept by the text itself, never hashed, and a
    // complete bounded encoding of one keeps nothing; at 1,024 the count is hashed.
    expect(await counting.count('a short frame header')).toBe(4);
    expect((await counting.encodeWithin?.('a short frame header', 100, 'start'))?.complete).toBe(true);
    expect(createHash).not.toHaveBeenCalled();
    expect(await counting.count('ab '.repeat(341).concat('c'))).toBe(
      reference.encode_ordinary('ab '.repeat(341).concat('c')).length,
    );
    expect(createHash).toHaveBeenCalledTimes(1);
    createHash.mockClear();

    expect(await counting.count(body)).toBe(1000);
    createHash.mockClear();
    expect((await within(body))?.knownCount).toBe(1000);
    expect(createHash).toHaveBeenCalledTimes(1);

    // Another length evicts it (one entry): its length is forgotten with it.
    expect(await counting.count(`${body}!`)).toBe(1001);
    createHash.mockClear();
    expect((await within(body))?.knownCount).toBeUndefined();
    expect(createHash).not.toHaveBeenCalled();
  });

  it('takes an encoding name or options; an explicit encoding wins over a model', async () => {
    const byName = createTiktokenTokenizer('cl100k_base');
    const byModel = createTiktokenTokenizer({ model: 'gpt-4-turbo' });
    const both = createTiktokenTokenizer({ encoding: 'o200k_base', model: 'gpt-4-turbo' });
    onTestFinished(() => {
      byName.dispose();
      byModel.dispose();
      both.dispose();
    });
    expect([tokenizer.name, byName.name, byModel.name, both.name]).toEqual([
      'tiktoken:o200k_base',
      'tiktoken:cl100k_base',
      'tiktoken:cl100k_base',
      'tiktoken:o200k_base',
    ]);
    // "日本語のテキスト" is 8 tokens in cl100k_base, 6 in o200k_base.
    expect([await byName.count('日本語のテキスト'), await both.count('日本語のテキスト')]).toEqual([8, 6]);
  });

  it('disposing an instance twice releases its share of the WASM encoder once; the last release frees it for a fresh one', async () => {
    // A spy on the real encoder's free (it calls through). cl100k_base with the piece cache off
    // (tiktoken's WASM encodes): no other instance of this file holds it.
    const free = vi.spyOn(Tiktoken.prototype, 'free');
    onTestFinished(() => free.mockRestore());
    const wasm = { encoding: 'cl100k_base', pieceCacheEntries: 0 } as const;
    const first = createTiktokenTokenizer(wasm);
    const second = createTiktokenTokenizer(wasm);
    first.dispose();
    first.dispose();
    expect(free).not.toHaveBeenCalled();
    expect(await second.count('still works')).toBe(2);
    second.dispose();
    expect(free).toHaveBeenCalledTimes(1);
    const fresh = createTiktokenTokenizer(wasm);
    onTestFinished(() => fresh.dispose());
    expect(await fresh.count('hello world')).toBe(2);
  });

  it('refuses a pieceCacheEntries that is not a whole number of 0 or more, naming it', () => {
    for (const value of [-1, 1.5, Number.NaN, '10' as unknown as number])
      expect(() => createTiktokenTokenizer({ pieceCacheEntries: value })).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTION',
          field: 'pieceCacheEntries',
          value,
          message: 'pieceCacheEntries must be a whole number, 0 or more',
        }),
      );
  });

  it('refuses a countCacheEntries that is not a whole number of 1 or more, naming it (not lru-cache’s TypeError)', () => {
    for (const value of [0, -1, 1.5, Number.NaN, '10' as unknown as number])
      expect(() => createTiktokenTokenizer({ countCacheEntries: value })).toThrow(
        expect.objectContaining({
          code: 'INVALID_OPTION',
          field: 'countCacheEntries',
          value,
          message: 'countCacheEntries must be a whole number, 1 or more',
        }),
      );
    // The least it takes: one entry.
    const tiny = createTiktokenTokenizer({ countCacheEntries: 1 });
    onTestFinished(() => tiny.dispose());
    return expect(tiny.count('hello world')).resolves.toBe(2);
  });

  it('encodes and decodes without tiktoken’s WASM when it encodes in JavaScript (decoding on the vocabulary)', async () => {
    const wasmEncode = spyForThisTest(Tiktoken.prototype, 'encode_ordinary');
    const wasmDecode = spyForThisTest(Tiktoken.prototype, 'decode');
    const own = createTiktokenTokenizer('cl100k_base');
    onTestFinished(() => own.dispose());
    const text = '日本語 🎉 <|endoftext|> café';
    const tokens = await own.encode(text);
    expect(own.decode(tokens)).toBe(text);
    // A prefix that ends inside a character drops it rather than inventing one.
    expect(own.decode(tokens.subarray(0, 1))).toBe('日');
    // Special tokens decode to their text; a number that is no token is an error naming it.
    expect(own.decode(Uint32Array.of(100257))).toBe('<|endoftext|>');
    expect(() => own.decode(Uint32Array.of(999_999))).toThrow('999999 is not a token of cl100k_base');
    expect([wasmEncode.mock.calls.length, wasmDecode.mock.calls.length]).toEqual([0, 0]);
  });

  it('keeps the counts of two long texts of the same length apart', async () => {
    const counting = createTiktokenTokenizer();
    onTestFinished(() => counting.dispose());
    const spaced = 'word '.repeat(300);
    const joined = 'wordx'.repeat(300);
    expect(reference.encode_ordinary(spaced).length).not.toBe(reference.encode_ordinary(joined).length);
    expect(await counting.count(spaced)).toBe(reference.encode_ordinary(spaced).length);
    expect(await counting.count(joined)).toBe(reference.encode_ordinary(joined).length);
    expect(await counting.count(spaced)).toBe(reference.encode_ordinary(spaced).length);
  });

  it('counts a long text once when two counts of it run at the same time', async () => {
    const counting = createTiktokenTokenizer();
    onTestFinished(() => counting.dispose());
    const encodeOrdinary = spyForThisTest(OrdinaryEncoder.prototype, 'encode');
    expect(await Promise.all([counting.count(lines), counting.count(lines)])).toEqual([1000, 1000]);
    // 4,500 characters are one chunk: one encoding call for both counts.
    expect(encodeOrdinary).toHaveBeenCalledTimes(1);
  });

  it('keeps the count of a complete bounded encoding of a long text, never of a partial one', async () => {
    const counting = createTiktokenTokenizer();
    onTestFinished(() => counting.dispose());
    const encodeOrdinary = spyForThisTest(OrdinaryEncoder.prototype, 'encode');

    const partial = await counting.encodeWithin?.(lines, 10, 'start');
    expect(partial?.complete).toBe(false);
    encodeOrdinary.mockClear();
    expect(await counting.count(lines)).toBe(1000);
    expect(encodeOrdinary).toHaveBeenCalledTimes(1);

    const other = `${lines.slice(0, -1)}!`;
    const whole = await counting.encodeWithin?.(other, 5000, 'start');
    expect([whole?.complete, whole?.tokens.length]).toEqual([true, 1000]);
    encodeOrdinary.mockClear();
    expect(await counting.count(other)).toBe(1000);
    expect(encodeOrdinary).not.toHaveBeenCalled();
  });

  it('encodes within a limit from the end: the last tokens, from a line start near the window', async () => {
    const tail = await tokenizer.encodeWithin?.(lines, 3, 'end');
    // A first window of 1,024 characters back from the end (4,500), widened to the line start at
    // or after it: 3,510 = 78 lines of 45.
    expect([tail?.start, tail?.end, tail?.complete]).toEqual([3510, 4500, false]);
    expect([...(tail?.tokens ?? [])]).toEqual([...reference.encode_ordinary(lines.slice(3510))]);
  });

  it('cuts text without safe boundaries from the end again and again, each text by its own piece boundaries', async () => {
    // Two base64 texts of one length, a long run of one letter, and a shorter text:
    // piece boundaries a walk found in one text (kept for the next cut of the same text) must
    // never be taken for another's. Each cut must be the whole text's encoding's last tokens.
    const base64 = (seed: number, bytes: number) =>
      Buffer.from(Array.from({ length: bytes }, (_, index) => ((index + seed) * 2654435761) & 255)).toString(
        'base64',
      );
    const [a, b, c] = [base64(1, 60_000), base64(7, 60_000), base64(3, 45_000)];
    const run = 'a'.repeat(12_000);
    for (const [text, limit] of [
      [a, 20_000],
      [b, 20_000],
      [a, 25_000],
      [run, 300],
      [c, 15_000],
      [a, 30_000],
    ] as const) {
      const cut = await tokenizer.encodeWithin?.(text, limit, 'end');
      const tokens = [...(cut?.tokens ?? [])];
      expect(tokens.length).toBeGreaterThan(limit);
      expect(tokens).toEqual([...reference.encode_ordinary(text)].slice(-tokens.length));
    }
  });

  it('cuts text without any boundary it can find from the end on its own, reading no further back than a chunk', async () => {
    // Capitalized words with nothing between them: short pieces ("Lorem", "Ipsum"), but no safe
    // boundary (no space, no newline) and no hard one (a letter next to a letter) to start a walk
    // from near the end. The cut is the encoding of the text from its start on its own, as a tail
    // cut shows it; reaching a boundary would mean walking the pieces from the text's start.
    const words = ['Lorem', 'Ipsum', 'Dolor', 'Sitamet', 'Consectetur', 'Adipiscing', 'Elit'];
    const text = Array.from({ length: 30_000 }, (_, index) => words[(index * 7) % words.length]).join('');
    const fresh = createTiktokenTokenizer();
    onTestFinished(() => fresh.dispose());
    const encodeOrdinary = spyForThisTest(OrdinaryEncoder.prototype, 'encode');
    const cut = await fresh.encodeWithin?.(text, 2_000, 'end');
    if (!cut) throw new Error('the tiktoken tokenizer encodes within a limit');
    expect(cut).toMatchObject({ end: text.length, complete: false, standalone: true });
    expect(cut.tokens.length).toBeGreaterThan(2_000);
    expect([...cut.tokens]).toEqual([...reference.encode_ordinary(text.slice(cut.start))]);
    // What was encoded: about what 2,000 tokens need, a few times over at most (the text has ~200k).
    const encoded = encodeOrdinary.mock.calls.reduce((sum, [chunk]) => sum + (chunk as string).length, 0);
    expect(encoded).toBeLessThan(4 * (text.length - cut.start));
    expect(text.length - cut.start).toBeLessThan(4 * 2_000 * 10);
  });

  it('goes on from an earlier encoding of the start, encoding only the rest; an encoding from the end is no place to go on from', async () => {
    const encodeOrdinary = spyForThisTest(OrdinaryEncoder.prototype, 'encode');
    const head = await tokenizer.encodeWithin?.(lines, 3, 'start');
    const tail = await tokenizer.encodeWithin?.(lines, 3, 'end');
    if (!head || !tail) throw new Error('the tiktoken tokenizer encodes within a limit');
    encodeOrdinary.mockClear();
    // 220 tokens counted to character 990; on to past 400: 256 characters more at least (a line
    // start at 1,440 after a window of 450 at the ratio seen plus an eighth).
    const further = await tokenizer.encodeWithin?.(lines, 400, 'start', head);
    const given = encodeOrdinary.mock.calls.map(([text]) => text).join('');
    expect(given).toBe(lines.slice(990, further?.end));
    expect([...(further?.tokens ?? [])]).toEqual([
      ...reference.encode_ordinary(lines.slice(0, further?.end)),
    ]);
    expect(further?.tokens.length).toBeGreaterThan(400);
    // An encoding from the end is no place to go on from: counted from the start as without it.
    const fromTail = await tokenizer.encodeWithin?.(lines, 400, 'start', tail);
    const fresh = await tokenizer.encodeWithin?.(lines, 400, 'start');
    expect([fromTail?.start, fromTail?.end, fromTail?.tokens]).toEqual([0, fresh?.end, fresh?.tokens]);
    // Gone on from a complete encoding, there is nothing left to encode.
    const wholeText = await tokenizer.encodeWithin?.(lines, 5000, 'start');
    expect(wholeText?.complete).toBe(true);
    encodeOrdinary.mockClear();
    const again = await tokenizer.encodeWithin?.(lines, 5000, 'start', wholeText);
    expect([again?.complete, again?.tokens.length]).toEqual([true, 1000]);
    expect(encodeOrdinary).not.toHaveBeenCalled();
    // From the end, it is encoded from the start as without it.
    const fromEnd = await tokenizer.encodeWithin?.(lines, 3, 'end', head);
    expect([fromEnd?.start, fromEnd?.end]).toEqual([tail.start, tail.end]);
  });

  it('reads a prefix count only off an encoding from the start that covers the prefix', async () => {
    const head = await tokenizer.encodeWithin?.(lines, 3, 'start');
    const tail = await tokenizer.encodeWithin?.(lines, 3, 'end');
    if (!head || !tail) throw new Error('the tiktoken tokenizer encodes within a limit');
    // The first window reads 1,024 characters, cut back to the line start at 990 = 22 lines.
    expect([head.start, head.end, head.tokens.length]).toEqual([0, 990, 220]);
    expect(tokenizer.countPrefix?.(lines, head, 990)).toBe(220);
    expect(tokenizer.countPrefix?.(lines, head, 45)).toBe(10);
    expect(tokenizer.countPrefix?.(lines, head, 1035)).toBeUndefined();
    expect(tokenizer.countPrefix?.(lines, tail, 45)).toBeUndefined();
  });

  it('reads a prefix count off an encoding when tiktoken’s WASM encodes too (token lengths from the WASM decoder)', async () => {
    const wasm = createTiktokenTokenizer({ pieceCacheEntries: 0 });
    onTestFinished(() => wasm.dispose());
    const text = `日本語 🎉\n${lines}`;
    const head = await wasm.encodeWithin?.(text, 3, 'start');
    if (!head) throw new Error('the tiktoken tokenizer encodes within a limit');
    const prefix = `日本語 🎉\n${lines.slice(0, 90)}`;
    expect(wasm.countPrefix?.(text, head, prefix.length)).toBe(reference.encode_ordinary(prefix).length);
  });

  it('a tokenizer made in a test encodes, decodes, counts and encodes within a limit', async () => {
    const own = createTiktokenTokenizer();
    onTestFinished(() => own.dispose());
    const tokens = await own.encode('before <|endoftext|> after');
    expect([...tokens]).toEqual([...reference.encode_ordinary('before <|endoftext|> after')]);
    expect(own.decode(tokens)).toBe('before <|endoftext|> after');
    expect(await own.count('before <|endoftext|> after')).toBe(9);
  });

  it('keeps the lengths of counted texts while any text of that length is kept, and forgets them with the last', async () => {
    const counting = createTiktokenTokenizer({ countCacheEntries: 2 });
    onTestFinished(() => counting.dispose());
    const createHash = vi.spyOn(crypto, 'createHash');
    syncBuiltinESMExports();
    onTestFinished(() => {
      createHash.mockRestore();
      syncBuiltinESMExports();
    });
    // Two texts of one length (4,500) and two of others, counted through a cache of two entries.
    const first = lines;
    const second = `${lines.slice(0, -1)}!`;
    const other = (n: number) => `${lines}${'x'.repeat(n)}`;
    expect(await counting.count(first)).toBe(1000);
    expect(await counting.count(second)).toBe(1000);
    // A complete bounded encoding of a text already kept keeps it again: still one entry.
    expect((await counting.encodeWithin?.(second, 5000, 'start'))?.complete).toBe(true);
    // `first` evicted: `second`, of the same length, is still known.
    expect(await counting.count(other(1))).toBe(1001);
    expect((await counting.encodeWithin?.(second, 10, 'start'))?.knownCount).toBe(1000);
    // Two more texts of other lengths evict `second` too (it was read last, so after the first
    // of them): no text of that length is kept, so it is not even hashed.
    expect(await counting.count(other(2))).toBe(1001);
    expect(await counting.count(other(3))).toBe(1001);
    createHash.mockClear();
    expect(await counting.encodeWithin?.(second, 10, 'start')).not.toHaveProperty('knownCount');
    expect(createHash).not.toHaveBeenCalled();
  });

  it('keeps the count of a complete bounded encoding of exactly 1,024 characters, the first length it keeps', async () => {
    const counting = createTiktokenTokenizer();
    onTestFinished(() => counting.dispose());
    const text = 'ab '.repeat(341).concat('c');
    expect(text).toHaveLength(1024);
    const whole = await counting.encodeWithin?.(text, 5000, 'start');
    expect(whole?.complete).toBe(true);
    expect(whole?.tokens.length).toBe(reference.encode_ordinary(text).length);
    expect((await counting.encodeWithin?.(text, 10, 'start'))?.knownCount).toBe(whole?.tokens.length);
    // One character less is below the threshold: nothing kept.
    const shorter = text.slice(1);
    await counting.encodeWithin?.(shorter, 5000, 'start');
    expect(await counting.encodeWithin?.(shorter, 10, 'start')).not.toHaveProperty('knownCount');
  });

  it('counts a text again once its count is evicted, and keeps a complete bounded encoding of a length never counted', async () => {
    const counting = createTiktokenTokenizer({ countCacheEntries: 1 });
    onTestFinished(() => counting.dispose());
    const encodeOrdinary = spyForThisTest(OrdinaryEncoder.prototype, 'encode');
    expect(await counting.count(lines)).toBe(1000);
    expect(await counting.count(`${lines}x`)).toBe(1001);
    encodeOrdinary.mockClear();
    expect(await counting.count(lines)).toBe(1000);
    expect(encodeOrdinary).toHaveBeenCalledTimes(1);

    const longer = `${lines}${lines}`;
    expect((await counting.encodeWithin?.(longer, 5000, 'start'))?.complete).toBe(true);
    encodeOrdinary.mockClear();
    expect(await counting.count(longer)).toBe(2000);
    expect(encodeOrdinary).not.toHaveBeenCalled();
  });
});
