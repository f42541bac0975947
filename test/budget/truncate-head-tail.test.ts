import { describe, expect, it } from 'vitest';
import { truncateHeadTail } from '../../src/budget/truncate/truncate-head-tail.js';
import { truncationRequest } from './truncation-request.js';

describe('truncateHeadTail', () => {
  it('keeps the beginning and the end, the larger half in front, one marker for the middle', async () => {
    expect(await truncateHeadTail(truncationRequest('abcdefghij', { contentTokens: 5 }))).toStrictEqual({
      text: 'abc[3-8]ij',
      elided: [{ startToken: 3, endToken: 8 }],
    });
  });
});
