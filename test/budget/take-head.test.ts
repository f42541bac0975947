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

  describe('a cut that is no piece boundary: the exact count of the prefix up to the last one', () => {
    it('tiktoken: the words before the cut word are counted exactly; the rest is left to count', async () => {
      const body = 'alpha beta antidisestablishmentarianism delta';
      const words = await tiktoken.count('alpha beta');
      // Two tokens into the long word: a cut inside it.
      const limit = words + 2;
      const text = tiktoken.decode((await tiktoken.encode(body)).subarray(0, limit));
      expect(text.length).toBeGreaterThan('alpha beta a'.length);
      expect(text.length).toBeLessThan('alpha beta antidisestablishmentarianism'.length);
      expect(await takeHead(body, limit, tiktoken, false)).toStrictEqual({
        text,
        tokens: limit,
        exactPrefix: { chars: 'alpha beta'.length, tokens: words },
      });
    });

    it('tiktoken: with no piece boundary before the cut there is no exact prefix, not one of the whole text', async () => {
      // One piece of letters, then "!": the letters alone are the body less its last character,
      // so a search that found no boundary must not count "up to -1".
      const word = 'antidisestablishmentarianism';
      const tokens = await tiktoken.count(word);
      expect(await takeHead(`${word}!`, tokens, tiktoken, false)).toStrictEqual({ text: word, tokens });
    });

    it('a tokenizer that cannot count the prefix at that boundary either: no exact prefix', async () => {
      // Counts prefixes only up to a line end (a tokenizer is free to answer undefined).
      const { tokenizer } = createCharTokenizer({ bounded: true, prefix: true });
      const countPrefix = tokenizer.countPrefix;
      const lineEnds = {
        ...tokenizer,
        countPrefix: ((text, encoding, chars) =>
          text[chars - 1] === '\n' ? countPrefix?.(text, encoding, chars) : undefined) as typeof countPrefix,
      };
      expect(await takeHead('alpha beta gamma', 13, lineEnds, false)).toStrictEqual({
        text: 'alpha beta ga',
        tokens: 13,
      });
      expect(await takeHead('alpha\nbeta gamma', 13, lineEnds, false)).toStrictEqual({
        text: 'alpha\nbeta ga',
        tokens: 13,
        exactPrefix: { chars: 6, tokens: 6 },
      });
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

    it('a partial encoding shorter than the limit: the head is encoded on from it as far as the limit', async () => {
      const { tokenizer, calls } = createCharTokenizer({ bounded: true, prefix: true });
      const counted = await tokenizer.encodeWithin?.(body, 3, 'start');
      calls.length = 0;
      expect(await takeHead(body, 6, tokenizer, false, counted)).toMatchObject({ text: 'abcdef', tokens: 6 });
      expect(calls).toEqual(['encodeWithin start 6 after 4']);
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
