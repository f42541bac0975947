import { takeHead } from './take-head.js';
import { takeTail } from './take-tail.js';
import type { TruncationStrategy } from './truncation-strategy.js';

/** Keeps the beginning and the end in equal shares; the marker stands where the middle was. */
export const truncateHeadTail: TruncationStrategy = async (request) => {
  const headShare = Math.ceil(request.contentTokens / 2);
  const [head, tail] = await Promise.all([
    takeHead(request.body, headShare, request.tokenizer, request.lineAware, request.headEncoding),
    takeTail(request.body, request.contentTokens - headShare, request.tokenizer, request.lineAware),
  ]);
  const range = {
    startToken: head.tokens,
    endToken: Math.max(head.tokens, request.originalTokens - tail.tokens),
  };
  return { text: head.text + request.marker(range, request.estimated) + tail.text, elided: [range] };
};
