import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { bytePairEncode } from '../../src/budget/byte-pair-encode.js';
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

  it.each(['o200k_base', 'cl100k_base'] as const)(
    'cuts the pieces tiktoken’s pre-tokenizer cuts, with the pattern built afresh (%s): each alternative, and what Unicode 17.0 assigned taken as punctuation',
    async (encoding) => {
      // The patterns are built when the module loads: a fresh copy builds them within the test.
      vi.resetModules();
      const { preTokenizePattern } = await import('../../src/budget/pre-tokenize-pattern.js');
      const pattern = preTokenizePattern(encoding);
      // Contractions after lower and upper case (and `'ſ`), title case, digit runs, punctuation
      // with `/` and newline tails, whitespace before a newline, before a word, before a digit and
      // at the end, and what Unicode 17.0 assigned: a letter (U+088F, alone in its range), a mark
      // (U+1AD0), digits (U+11DE0 and U+11DE1, the first and second of a range; taken as
      // punctuation, each leaves "1234" to be cut 123|4, not 12|34). And Han before capitals:
      // o200k_base's first alternative takes " 天天中彩票APPs" whole (its upper-case run admits Lo),
      // and one token of its vocabulary is " 天天中彩票APP".
      const text =
        "We'LL don't DON'T it'ſ they're ǅemo HELLOworld 12345 a 1 x!!/\n\nfoo...\r\n  \n\tbar   baz \u{11DE1}1234 \u{11DE0}1234 \u1AD0x\u088Fy é日本語 🎉🎉 天天中彩票APPs $$/ //\n end  ";
      const tokens: number[] = [];
      for (let start = 0; start < text.length; start = pattern.lastIndex) {
        pattern.lastIndex = start;
        const piece = pattern.exec(text)?.[0];
        if (!piece) throw new Error(`no piece at ${start}`);
        tokens.push(...bytePairEncode(encoding, piece));
      }
      const reference = get_encoding(encoding);
      try {
        expect(tokens).toEqual([...reference.encode_ordinary(text)]);
      } finally {
        reference.free();
      }
    },
  );

  it('is trusted to tokenize on Unicode 16.0 and 17.0 only, the tables tiktoken’s pattern is built for', async () => {
    // The module reads process.versions.unicode when it loads: a fresh copy under each version.
    const unicode = Object.getOwnPropertyDescriptor(process.versions, 'unicode');
    if (!unicode) throw new Error('this Node names its Unicode version');
    onTestFinished(() => {
      Object.defineProperty(process.versions, 'unicode', unicode);
    });
    const trusted: Record<string, boolean> = {};
    for (const version of ['15.1', '16.0', '17.0', '18.0']) {
      Object.defineProperty(process.versions, 'unicode', { ...unicode, value: version });
      vi.resetModules();
      trusted[version] = (await import('../../src/budget/pre-tokenize-pattern.js')).patternIsTiktokens;
    }
    expect(trusted).toEqual({ '15.1': false, '16.0': true, '17.0': true, '18.0': false });
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
