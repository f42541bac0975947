import { pinnedPrefix } from './pinned-prefix.js';
import { takeTail } from './take-tail.js';
import type { TruncationStrategy } from './truncation-strategy.js';

/** Keeps the end (logs, changelogs); the pinned prefix (a CSV header) stays in front of the marker. */
export const truncateTail: TruncationStrategy = async (request) => {
  const pinned = await pinnedPrefix(request);
  const tail = await takeTail(
    request.body,
    request.contentTokens - pinned.tokens,
    request.tokenizer,
    request.lineAware,
  );
  const range = {
    startToken: pinned.tokens,
    endToken: Math.max(pinned.tokens, request.originalTokens - tail.tokens),
  };
  return { text: pinned.text + request.marker(range, request.estimated) + tail.text, elided: [range] };
};
