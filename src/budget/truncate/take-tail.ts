import { encodeWithin } from '../encode-within.js';
import type { Tokenizer } from '../tokenizer.js';
import { lineStartAfter } from './cut-at-line.js';
import type { Taken } from './take-head.js';

/** The last `limit` tokens of `body` as text; encodes from the end, so the cost follows `limit`. */
export async function takeTail(
  body: string,
  limit: number,
  tokenizer: Tokenizer,
  lineAware: boolean,
): Promise<Taken> {
  if (limit <= 0) return { text: '', tokens: 0 };
  const encoding = await encodeWithin(tokenizer, body, limit, 'end');
  const all = encoding.tokens;
  const tokens = Math.min(limit, all.length);
  const text = tokenizer.decode(all.subarray(all.length - tokens));
  if (!lineAware) return { text, tokens };
  const cut = lineStartAfter(text);
  if (cut === 0) return { text, tokens };
  const dropped = await tokenizer.count(text.slice(0, cut));
  return { text: text.slice(cut), tokens: Math.max(0, tokens - dropped) };
}
