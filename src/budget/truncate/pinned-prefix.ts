import type { Taken } from './take-head.js';
import type { TruncationRequest } from './truncation-strategy.js';

/** The pinned leading lines (a CSV header) and their tokens; empty when nothing is pinned or it would not fit. */
export async function pinnedPrefix(request: TruncationRequest): Promise<Taken> {
  if (request.pinnedChars <= 0) return { text: '', tokens: 0 };
  const text = request.body.slice(0, request.pinnedChars);
  const tokens = await request.tokenizer.count(text);
  // A header that takes over half the share leaves too little to be worth pinning.
  return tokens * 2 <= request.contentTokens ? { text, tokens } : { text: '', tokens: 0 };
}
