import { describe, expect, it } from 'vitest';
import { measureBody } from '../../src/budget/measure-body.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
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
});
