import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { OrdinaryEncoder } from '../../src/budget/encode-ordinary.js';
import { vocabularyOf } from '../../src/budget/vocabulary-of.js';

// The encoder's own bookkeeping (its piece cache, its token buffer), held to what it promises;
// encode-ordinary.fuzz.test.ts holds its tokens to tiktoken's.
const o200k = get_encoding('o200k_base');
afterAll(() => o200k.free());
const reference = (text: string) => [...o200k.encode_ordinary(text)];

describe('OrdinaryEncoder', () => {
  it('keeps the tokens of pieces up to 256 characters, at most pieceEntries of them', () => {
    const encoder = new OrdinaryEncoder('o200k_base', 3);
    // Pieces: "a", " b", " c" (kept), then a run of 300 and one of 256 letters, and " d".
    const text = `a b c ${'x'.repeat(300)} ${'y'.repeat(255)} d`;
    expect([...encoder.encode('a b c')]).toEqual(reference('a b c'));
    expect(encoder.keptPieces).toBe(3);
    expect([...encoder.encode(` ${'x'.repeat(300)}`)]).toEqual(reference(` ${'x'.repeat(300)}`));
    expect(encoder.keptPieces).toBe(3);
    // The fourth kept piece finds the cache full: it starts again with that piece alone.
    expect([...encoder.encode(` ${'y'.repeat(255)}`)]).toEqual(reference(` ${'y'.repeat(255)}`));
    expect(encoder.keptPieces).toBe(1);
    expect([...encoder.encode(text)]).toEqual(reference(text));
  });

  it('answers a piece met before from its cache, without looking up the vocabulary again', () => {
    const encoder = new OrdinaryEncoder('o200k_base');
    const text = 'tokenization of tokenizers';
    const first = [...encoder.encode(text)];
    const lookups = vi.spyOn(vocabularyOf('o200k_base'), 'rankOf');
    onTestFinished(() => lookups.mockRestore());
    expect([...encoder.encode(text)]).toEqual(first);
    expect(lookups).not.toHaveBeenCalled();
    expect(first).toEqual(reference(text));
  });

  it('grows its token buffer when a piece crosses its end (4,096 tokens at first), one of several tokens or of one', () => {
    const encoder = new OrdinaryEncoder('o200k_base');
    // 4,095 pieces of one token, then " zqxjk" (3 tokens) across the first buffer's end.
    const text = `${' a'.repeat(4095)} zqxjk`;
    const expected = reference(text);
    expect(expected).toHaveLength(4098);
    expect([...encoder.encode(text)]).toEqual(expected);
    // The grown buffer is reused: a shorter text afterwards gets its own tokens only.
    expect([...encoder.encode(' zqxjk a')]).toEqual(reference(' zqxjk a'));
    // A piece of one token past the end grows a fresh encoder's buffer too.
    const singles = ' a'.repeat(4097);
    expect([...new OrdinaryEncoder('o200k_base').encode(singles)]).toEqual(reference(singles));
  });

  it('merges pieces of 63 and 64 bytes (the scan’s last slots) and of 65 (the heap) as tiktoken does, its buffers made afresh', async () => {
    // The scan's buffers are made when the module loads: a fresh copy makes them within the test.
    vi.resetModules();
    const { bytePairEncode: fresh } = await import('../../src/budget/byte-pair-encode.js');
    const letters = 'qwertyuiopasdfghjklzxcvbnm'.repeat(3);
    // One lowercase word each (one piece), none of them one token; 32 × "é" is 64 bytes.
    const pieces = [63, 64, 65].map((length) => letters.slice(0, length)).concat('é'.repeat(32));
    expect(pieces.map((piece) => [...fresh('o200k_base', piece)])).toEqual(pieces.map(reference));
  });
});
