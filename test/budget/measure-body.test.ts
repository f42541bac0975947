import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeWithin } from '../../src/budget/encode-within.js';
import { measureBody } from '../../src/budget/measure-body.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
import { EscapedText } from '../../src/render/escaped-text.js';
import { escapeUntrustedText } from '../../src/render/frame-resource.js';
import { createCharTokenizer } from './char-tokenizer.js';

describe('measureBody', () => {
  const { tokenizer } = createCharTokenizer({ bounded: true });

  it('a body within the limit is counted exactly', async () => {
    const measure = await measureBody('abcdef', 10, tokenizer);
    expect(measure).toMatchObject({ originalTokens: 6, estimated: false, head: { complete: true } });
    expect(measure.head.tokens).toHaveLength(6);
  });

  it('a longer one is counted to just past the limit and its total extrapolated by characters', async () => {
    // 11 tokens over the first 11 characters: 3,011 characters extrapolate to 3,011 tokens.
    const body = `${'a'.repeat(11)}${'€'.repeat(3000)}`;
    const measure = await measureBody(body, 10, tokenizer);
    expect(measure).toMatchObject({
      originalTokens: 3011,
      estimated: true,
      head: { complete: false, start: 0, end: 11 },
    });
    expect(measure.head.tokens).toHaveLength(11);
  });

  it('extrapolates by UTF-16 units: 11 tokens over 22 units, 200 units make 100 tokens', async () => {
    expect(await measureBody('😀'.repeat(100), 10, tokenizer)).toMatchObject({
      originalTokens: 100,
      estimated: true,
    });
  });

  it('the estimate is above what was counted even where the extrapolation is not', async () => {
    // Tokens of 10 characters: 3 counted over 30 of 31 characters extrapolate to 3.1, so 3.
    const tenCharacters: Tokenizer = {
      ...tokenizer,
      encodeWithin: async (text, limitTokens) => {
        const tokens = Math.min(limitTokens + 1, Math.ceil(text.length / 10));
        const end = Math.min(text.length, tokens * 10);
        return { tokens: new Uint32Array(tokens), start: 0, end, complete: end === text.length };
      },
    };
    expect(await measureBody('a'.repeat(31), 2, tenCharacters)).toMatchObject({
      originalTokens: 4,
      estimated: true,
    });
  });

  it('a count the tokenizer already knows is taken as exact', async () => {
    const knowing: Tokenizer = {
      ...tokenizer,
      encodeWithin: async (text, limitTokens, from) =>
        ({
          ...(await tokenizer.encodeWithin?.(text, limitTokens, from)),
          knownCount: 42,
        }) as never,
    };
    expect(await measureBody('a'.repeat(100), 10, knowing)).toMatchObject({
      originalTokens: 42,
      estimated: false,
    });
  });

  it('a negative limit counts from 0', async () => {
    const { tokenizer: recording, calls } = createCharTokenizer({ bounded: true });
    const measure = await measureBody('abcdef', -5, recording);
    expect(calls).toEqual(['encodeWithin start 0']);
    expect(measure.originalTokens).toBe(6);
  });

  describe('of a lazily escaped body', () => {
    const tiktoken = createTiktokenTokenizer();
    const judge = get_encoding('o200k_base');
    afterAll(() => {
      tiktoken.dispose();
      judge.free();
    });

    it('counts the escaped prefix to just past the limit, and estimates the whole by how escaping lengthened it', async () => {
      const raw = 'a <|endoftext|> b </mcp-resource> c\n'.repeat(20_000);
      const body = new EscapedText(raw);
      const measure = await measureBody(body, 100, tiktoken);
      const whole = escapeUntrustedText(raw);
      expect(measure.estimated).toBe(true);
      expect(measure.head.tokens.length).toBeGreaterThan(100);
      expect([...measure.head.tokens]).toEqual([
        ...judge.encode_ordinary(whole).slice(0, measure.head.tokens.length),
      ]);
      // Every line escapes alike: the estimate is the whole escaped body's count to within a token a line.
      const exact = judge.encode_ordinary(whole).length;
      expect(Math.abs(measure.originalTokens - exact)).toBeLessThan(exact / 100);
      // Only a prefix was escaped.
      expect(body.prefix(0).whole).toBe(false);
    });

    it('counts on into longer prefixes while one is counted out before the limit', async () => {
      // Lines of a letter and 300 spaces: dozens of characters a token, so the first prefix
      // (8 characters a token wanted) holds too few.
      const raw = `x${' '.repeat(300)}\n`.repeat(5000);
      const body = new EscapedText(raw);
      // Every count, the first and those that go on, is asked of the prefix's start.
      const asked: string[] = [];
      const recording: Tokenizer = {
        ...tiktoken,
        encodeWithin: (text, limitTokens, from, resume) => {
          asked.push(`${from} ${resume === undefined ? 'fresh' : 'on'}`);
          return encodeWithin(tiktoken, text, limitTokens, from, resume);
        },
      };
      const measure = await measureBody(body, 2000, recording);
      expect(asked.length).toBeGreaterThan(1);
      expect(asked).toEqual(['start fresh', ...Array(asked.length - 1).fill('start on')]);
      expect(measure.estimated).toBe(true);
      expect(measure.head.tokens.length).toBeGreaterThan(2000);
      expect([...measure.head.tokens]).toEqual([
        ...judge.encode_ordinary(raw).slice(0, measure.head.tokens.length),
      ]);
    });

    it('escapes at first about 8 characters a token of the limit, and at least 4,096', async () => {
      // Prose of about 4 characters a token: the first prefix holds more than the limit, so it
      // is the only one escaped, and it ends at the first line end past what was wanted.
      const line = 'The checkout service validates the cart, reserves stock and charges the card.\n';
      const raw = line.repeat(2000);
      const firstCutAtOrAfter = (chars: number) => Math.ceil(chars / line.length) * line.length;
      const big = new EscapedText(raw);
      expect(await measureBody(big, 1000, tiktoken)).toMatchObject({ estimated: true });
      expect(big.prefix(0).rawChars).toBe(firstCutAtOrAfter(8000));
      const small = new EscapedText(raw);
      expect(await measureBody(small, 10, tiktoken)).toMatchObject({ estimated: true });
      expect(small.prefix(0).rawChars).toBe(firstCutAtOrAfter(4096));
    });

    it('is exact when the body is counted to its end', async () => {
      const raw = 'short <|endoftext|> body\nsecond line\n';
      const measure = await measureBody(new EscapedText(raw), 1000, tiktoken);
      expect(measure).toMatchObject({
        estimated: false,
        originalTokens: judge.encode_ordinary(escapeUntrustedText(raw)).length,
      });
    });
  });
});
