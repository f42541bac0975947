import { afterAll, describe, expect, it } from 'vitest';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import { takeHead } from '../../src/budget/truncate/take-head.js';
import { createCharTokenizer } from './char-tokenizer.js';

const tiktoken = createTiktokenTokenizer();
afterAll(() => tiktoken.dispose());

describe('takeHead', () => {
  it('a limit of 0 takes nothing and encodes nothing', async () => {
    const { tokenizer, calls } = createCharTokenizer({ bounded: true, prefix: true });
    expect(await takeHead('abcdef', 0, tokenizer, false)).toStrictEqual({ text: '', tokens: 0 });
    expect(calls).toEqual([]);
  });

  it('takes the first `limit` tokens, with their exact count when the tokenizer gives it', async () => {
    const { tokenizer, calls } = createCharTokenizer({ bounded: true, prefix: true });
    expect(await takeHead('abcdefghij', 4, tokenizer, false)).toStrictEqual({
      text: 'abcd',
      tokens: 4,
      exactTokens: 4,
    });
    expect(calls).toEqual(['encodeWithin start 4']);
  });

  it('without countPrefix, or when the text decoded is no prefix of the body, there is no exact count', async () => {
    const { tokenizer } = createCharTokenizer({ bounded: true });
    expect(await takeHead('abcdefghij', 4, tokenizer, false)).toStrictEqual({ text: 'abcd', tokens: 4 });
    // A lone surrogate decodes to U+FFFD.
    const prefixed = createCharTokenizer({ bounded: true, prefix: true }).tokenizer;
    expect(await takeHead('ab\ud800cd', 10, prefixed, false)).toStrictEqual({
      text: 'ab\ufffdcd',
      tokens: 5,
    });
  });

  it('a cut inside a word is no piece boundary: tiktoken gives no exact count', async () => {
    expect(await takeHead('antidisestablishmentarianism is long', 2, tiktoken, false)).toStrictEqual({
      text: 'antidis',
      tokens: 2,
    });
  });

  describe('reuses the tokens of the counting pass when they reach the limit', () => {
    const body = 'abcdefghij';

    it('a complete encoding, shorter or longer than the limit: nothing is encoded again', async () => {
      const { tokenizer, calls } = createCharTokenizer({ bounded: true, prefix: true });
      const counted = await tokenizer.encodeWithin?.(body, 20, 'start');
      calls.length = 0;
      expect(await takeHead(body, 4, tokenizer, false, counted)).toMatchObject({ text: 'abcd', tokens: 4 });
      expect(await takeHead(body, 20, tokenizer, false, counted)).toMatchObject({ text: body, tokens: 10 });
      expect(calls).toEqual([]);
    });

    it('a partial encoding of exactly `limit` tokens: nothing is encoded again', async () => {
      const { tokenizer, calls } = createCharTokenizer({ bounded: true, prefix: true });
      // Counting up to 3 tokens stops after the 4th.
      const counted = await tokenizer.encodeWithin?.(body, 3, 'start');
      calls.length = 0;
      expect(await takeHead(body, 4, tokenizer, false, counted)).toMatchObject({ text: 'abcd', tokens: 4 });
      expect(calls).toEqual([]);
    });

    it('a partial encoding shorter than the limit: the head is encoded as far as the limit', async () => {
      const { tokenizer, calls } = createCharTokenizer({ bounded: true, prefix: true });
      const counted = await tokenizer.encodeWithin?.(body, 3, 'start');
      calls.length = 0;
      expect(await takeHead(body, 6, tokenizer, false, counted)).toMatchObject({ text: 'abcdef', tokens: 6 });
      expect(calls).toEqual(['encodeWithin start 6']);
    });
  });

  describe('line-aware', () => {
    const body = `${'a'.repeat(98)}\nbbbb`;

    it('ends at a line end near the cut, counting the tokens given up', async () => {
      const { tokenizer } = createCharTokenizer({ bounded: true, prefix: true });
      expect(await takeHead(body, 100, tokenizer, true)).toStrictEqual({
        text: `${'a'.repeat(98)}\n`,
        tokens: 99,
        exactTokens: 99,
      });
    });

    it('off, the cut stays where the limit falls', async () => {
      const { tokenizer } = createCharTokenizer({ bounded: true, prefix: true });
      expect(await takeHead(body, 100, tokenizer, false)).toStrictEqual({
        text: `${'a'.repeat(98)}\nb`,
        tokens: 100,
        exactTokens: 100,
      });
    });
  });
});
