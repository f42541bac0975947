import { describe, expect, it } from 'vitest';
import { truncateHead } from '../../src/budget/truncate/truncate-head.js';
import { createCharTokenizer } from './char-tokenizer.js';
import { truncationRequest } from './truncation-request.js';

describe('truncateHead', () => {
  it('keeps the first share, one marker after it; the parts carry the exact count of the head', async () => {
    expect(
      await truncateHead(truncationRequest('abcdefghij', { contentTokens: 4, estimated: true })),
    ).toStrictEqual({
      text: 'abcd[~4-10]',
      elided: [{ startToken: 4, endToken: 10 }],
      parts: [{ text: 'abcd', tokens: 4 }, { text: '[~4-10]' }],
    });
  });

  it('a tokenizer without countPrefix leaves the count of the head to be made', async () => {
    const { tokenizer } = createCharTokenizer({ bounded: true });
    expect(
      await truncateHead(truncationRequest('abcdefghij', { contentTokens: 4, tokenizer })),
    ).toStrictEqual({
      text: 'abcd[4-10]',
      elided: [{ startToken: 4, endToken: 10 }],
      parts: [{ text: 'abcd' }, { text: '[4-10]' }],
    });
  });
});
