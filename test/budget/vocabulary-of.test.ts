import { get_encoding } from 'tiktoken';
import { describe, expect, it, vi } from 'vitest';
import { vocabularyOf } from '../../src/budget/vocabulary-of.js';

describe('vocabularyOf', () => {
  it('reads an encoding’s vocabulary once per process: every call answers the same tables', () => {
    // Each encoder miss looks its ranks up here; a vocabulary read again per call would cost
    // a few hundred ms each time.
    expect(vocabularyOf('cl100k_base')).toBe(vocabularyOf('cl100k_base'));
    expect(vocabularyOf('o200k_base')).not.toBe(vocabularyOf('cl100k_base'));
  });

  it.each(['o200k_base', 'cl100k_base'] as const)(
    'has every token’s bytes as tiktoken has them, and finds each ordinary token by its bytes (%s, every 7th token)',
    (encoding) => {
      const vocabulary = vocabularyOf(encoding);
      const reference = get_encoding(encoding);
      try {
        const mismatched: number[] = [];
        for (let token = 0; token < 199_998 && (encoding === 'o200k_base' || token < 100_256); token += 7) {
          const expected = reference.decode_single_token_bytes(token);
          const written = new Uint8Array(expected.length + 2);
          const end = vocabulary.writeBytes(token, written, 1);
          const bytes = Buffer.from(written.subarray(1, end)).toString('latin1');
          if (
            vocabulary.byteLength(token) !== expected.length ||
            end !== expected.length + 1 ||
            !Buffer.from(expected).equals(written.subarray(1, end)) ||
            vocabulary.rankOf(bytes) !== token
          )
            mismatched.push(token);
        }
        expect(mismatched).toEqual([]);
      } finally {
        reference.free();
      }
    },
  );

  it('knows special tokens by number only, and nothing that is no token', () => {
    const vocabulary = vocabularyOf('o200k_base');
    // <|endoftext|> is 199999: 13 bytes, written out; its text is not an ordinary token.
    expect(vocabulary.byteLength(199_999)).toBe(13);
    const written = new Uint8Array(13);
    vocabulary.writeBytes(199_999, written, 0);
    expect(Buffer.from(written).toString()).toBe('<|endoftext|>');
    expect(vocabulary.rankOf('<|endoftext|>')).toBeUndefined();
    // 199998 and 200000 are numbers between the special tokens; 10^6 is past the end.
    expect([
      vocabulary.byteLength(199_998),
      vocabulary.byteLength(200_000),
      vocabulary.byteLength(1e6),
    ]).toEqual([undefined, undefined, undefined]);
    expect(vocabulary.rankOf('no such token at all, surely')).toBeUndefined();
    expect(vocabulary.rankOf('')).toBeUndefined();
  });

  it('reads the encoder file when first asked: a fresh copy of the module loads cl100k_base afresh, every ordinary and special token', async () => {
    // The other tests meet the vocabulary a test file loaded when it was imported; here it is
    // read, packed and hashed within the test (every 13th ordinary token held to tiktoken's).
    vi.resetModules();
    const fresh = await import('../../src/budget/vocabulary-of.js');
    const vocabulary = fresh.vocabularyOf('cl100k_base');
    expect(vocabulary).not.toBe(vocabularyOf('cl100k_base'));
    const reference = get_encoding('cl100k_base');
    try {
      const mismatched: number[] = [];
      for (let token = 0; token < 100_256; token += 13) {
        const expected = Buffer.from(reference.decode_single_token_bytes(token));
        const written = new Uint8Array(expected.length);
        vocabulary.writeBytes(token, written, 0);
        if (
          vocabulary.byteLength(token) !== expected.length ||
          !expected.equals(written) ||
          vocabulary.rankOf(expected.toString('latin1')) !== token
        )
          mismatched.push(token);
      }
      expect(mismatched).toEqual([]);
    } finally {
      reference.free();
    }
    // Its five special tokens, the last (100276) the highest number: known by number, written
    // out, never found by their text.
    const specials = {
      100257: '<|endoftext|>',
      100258: '<|fim_prefix|>',
      100259: '<|fim_middle|>',
      100260: '<|fim_suffix|>',
      100276: '<|endofprompt|>',
    };
    for (const [token, text] of Object.entries(specials)) {
      const written = new Uint8Array(text.length);
      vocabulary.writeBytes(Number(token), written, 0);
      expect([
        vocabulary.byteLength(Number(token)),
        Buffer.from(written).toString(),
        vocabulary.rankOf(text),
      ]).toEqual([text.length, text, undefined]);
    }
    // 100256 and 100261…100275 are numbers between them, 100277 the first past the end.
    expect([100_256, 100_261, 100_275, 100_277].map((token) => vocabulary.byteLength(token))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
