import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { OrdinaryEncoder } from '../../src/budget/encode-ordinary.js';
import type { TokenizerEncoding } from '../../src/budget/encoding-for-model.js';
import { patternIsTiktokens } from '../../src/budget/pre-tokenize-pattern.js';
import { fuzzParameters } from '../support/fuzz-parameters.js';
import { preTokenizerAtoms as atoms } from '../support/pre-tokenizer-atoms.js';

const encodings: TokenizerEncoding[] = ['o200k_base', 'cl100k_base'];
const references = new Map(encodings.map((encoding) => [encoding, get_encoding(encoding)]));
afterAll(() => {
  for (const reference of references.values()) reference.free();
});
const tiktokenOf = (encoding: TokenizerEncoding, text: string) => [
  ...(references.get(encoding)?.encode_ordinary(text) ?? []),
];

describe('OrdinaryEncoder', () => {
  it('runs where this Node’s Unicode tables are tiktoken’s (the machines here: Unicode 17.0)', () => {
    expect(process.versions.unicode).toBe('17.0');
    expect(patternIsTiktokens).toBe(true);
  });

  it.each(encodings)('encodes %s token for token as tiktoken’s encode_ordinary', (encoding) => {
    const encoder = new OrdinaryEncoder(encoding);
    // A tiny piece cache too: dropping it on the way must not change a token.
    const forgetful = new OrdinaryEncoder(encoding, 3);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...atoms), { maxLength: 40 }), (parts) => {
        const text = parts.join('');
        const expected = tiktokenOf(encoding, text);
        expect([...encoder.encode(text)]).toEqual(expected);
        expect([...forgetful.encode(text)]).toEqual(expected);
      }),
      fuzzParameters(400),
    );
  });

  it("takes `'ſ` as a contraction, as Rust’s case-insensitive `'s` does", () => {
    // Found by the property above with a random seed: after a letter, `'ſ` is a contraction in
    // tiktoken (ſ folds to s) and so joins the word, which moves where the next piece starts.
    const encoder = new OrdinaryEncoder('o200k_base');
    for (const text of ["r'ſ'TBavǅL", "éLL'ſ'MB", "it'ſ a"])
      expect([...encoder.encode(text)]).toEqual(tiktokenOf('o200k_base', text));
  });

  it('encodes long text, long pieces and pieces at the short-merge limit exactly', () => {
    const encoder = new OrdinaryEncoder('o200k_base');
    const texts = [
      'The checkout service validates the cart, reserves stock and charges the card.\n'.repeat(900),
      // 64 and 65 bytes in one piece: the last short merge and the first long one.
      `z${'q'.repeat(63)} z${'q'.repeat(64)} ${'é'.repeat(32)} ${'é'.repeat(33)}`,
      'x'.repeat(5000),
      `${' '.repeat(3000)}a`,
    ];
    for (const text of texts) expect([...encoder.encode(text)]).toEqual(tiktokenOf('o200k_base', text));
  });

  it.each(encodings)(
    'classes every sampled code point as tiktoken does (%s)',
    (encoding) => {
      // Every code point under `npm run fuzz`; in CI, every 31st and all that Unicode 17.0 added.
      const stride = process.env.FUZZ_RUNS === undefined ? 31 : 1;
      const added = [
        [0x88f, 0x88f],
        [0xc5c, 0xc5c],
        [0xcdc, 0xcdc],
        [0x1acf, 0x1aeb],
        [0xa7ce, 0xa7f1],
        [0x10940, 0x10959],
        [0x10ec5, 0x10efb],
        [0x11b60, 0x11b67],
        [0x11db0, 0x11de9],
        [0x16ea0, 0x16ed3],
        [0x16ff2, 0x16ff6],
        [0x187f8, 0x187ff],
        [0x18d09, 0x18df2],
        [0x1e6c0, 0x1e6ff],
        [0x2b73a, 0x2b73f],
        [0x2cea2, 0x2cead],
        [0x323b0, 0x33479],
      ];
      const codePoints: number[] = [];
      for (let code = 0; code < 0x110000; code += stride) codePoints.push(code);
      for (const [from, to] of added)
        for (let code = from as number; code <= (to as number); code++) codePoints.push(code);
      const encoder = new OrdinaryEncoder(encoding);
      // Each code point where a letter, a digit, a space, a contraction and a newline meet it.
      const contexts = (character: string) =>
        ` x${character}y ${character}${character}A${character} 1${character}'s${character}\n${character} ${character}\t`;
      const mismatched: string[] = [];
      const check = (batch: number[]) => {
        const text = batch.map((code) => contexts(String.fromCodePoint(code))).join('');
        if (JSON.stringify([...encoder.encode(text)]) === JSON.stringify(tiktokenOf(encoding, text))) return;
        if (batch.length === 1) mismatched.push((batch[0] as number).toString(16));
        else {
          check(batch.slice(0, batch.length >> 1));
          check(batch.slice(batch.length >> 1));
        }
      };
      const characters = codePoints.filter((code) => code < 0xd800 || code > 0xdfff);
      for (let start = 0; start < characters.length; start += 2048)
        check(characters.slice(start, start + 2048));
      expect(mismatched).toEqual([]);
    },
    600_000,
  );
});
