import { describe, expect, it } from 'vitest';
import { takeTail } from '../../src/budget/truncate/take-tail.js';
import { createCharTokenizer } from './char-tokenizer.js';

describe('takeTail', () => {
  const body = `a\n${'b'.repeat(98)}`;

  it('a limit of 0 takes nothing and encodes nothing', async () => {
    const { tokenizer, calls } = createCharTokenizer({ bounded: true });
    expect(await takeTail(body, 0, tokenizer, true)).toStrictEqual({ text: '', tokens: 0 });
    expect(calls).toEqual([]);
  });

  it('takes the last `limit` tokens, encoding from the end', async () => {
    const { tokenizer, calls } = createCharTokenizer({ bounded: true });
    expect(await takeTail(body, 5, tokenizer, false)).toStrictEqual({ text: 'bbbbb', tokens: 5 });
    expect(calls).toEqual(['encodeWithin end 5']);
  });

  it('line-aware, starts after a line end near the cut, counting the tokens given up', async () => {
    const { tokenizer } = createCharTokenizer({ bounded: true });
    expect(await takeTail(body, 100, tokenizer, true)).toStrictEqual({ text: 'b'.repeat(98), tokens: 98 });
  });

  it('not line-aware, the cut stays where the limit falls', async () => {
    const { tokenizer } = createCharTokenizer({ bounded: true });
    expect(await takeTail(body, 100, tokenizer, false)).toStrictEqual({ text: body, tokens: 100 });
  });
});
