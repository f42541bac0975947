import { takeHead } from './take-head.js';
import type { TruncationStrategy } from './truncation-strategy.js';

/** Keeps the beginning; one marker at the end says what follows and where to read on. */
export const truncateHead: TruncationStrategy = async (request) => {
  const head = await takeHead(
    request.body,
    request.contentTokens,
    request.tokenizer,
    request.lineAware,
    request.headEncoding,
  );
  const range = { startToken: head.tokens, endToken: request.originalTokens };
  const marker = request.marker(range, request.estimated);
  return {
    text: head.text + marker,
    elided: [range],
    parts: [
      { text: head.text, ...(head.exactTokens !== undefined && { tokens: head.exactTokens }) },
      { text: marker },
    ],
  };
};
