import type { JoinedPart } from '../count-joined.js';
import { type Taken, takeHead } from './take-head.js';
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
    parts: [...headParts(head), { text: marker }],
  };
};

/** The kept head as parts for counting, with every exact count the cut already knows. */
function headParts(head: Taken): JoinedPart[] {
  if (head.exactTokens !== undefined) return [{ text: head.text, tokens: head.exactTokens }];
  const prefix = head.exactPrefix;
  if (prefix === undefined) return [{ text: head.text }];
  return [
    { text: head.text.slice(0, prefix.chars), tokens: prefix.tokens },
    { text: head.text.slice(prefix.chars) },
  ];
}
