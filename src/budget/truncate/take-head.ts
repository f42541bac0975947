import { encodeWithin } from '../encode-within.js';
import type { BoundedEncoding, Tokenizer } from '../tokenizer.js';
import { lineEndBefore } from './cut-at-line.js';

export interface Taken {
  readonly text: string;
  /** Tokens of `text` in the original encoding (offset bookkeeping for markers). */
  readonly tokens: number;
}

/**
 * The first `limit` tokens of `body` as text, decoded from the counting pass's tokens (never
 * re-encoding the whole). A multi-byte character cut at the end is dropped, not garbled.
 */
export async function takeHead(
  body: string,
  limit: number,
  tokenizer: Tokenizer,
  lineAware: boolean,
  counted?: BoundedEncoding,
): Promise<Taken> {
  if (limit <= 0) return { text: '', tokens: 0 };
  const encoding =
    counted && (counted.complete || counted.tokens.length >= limit)
      ? counted
      : await encodeWithin(tokenizer, body, limit, 'start');
  const tokens = Math.min(limit, encoding.tokens.length);
  const text = tokenizer.decode(encoding.tokens.subarray(0, tokens));
  if (!lineAware) return { text, tokens };
  const cut = lineEndBefore(text);
  if (cut === text.length) return { text, tokens };
  const dropped = await tokenizer.count(text.slice(cut));
  return { text: text.slice(0, cut), tokens: Math.max(0, tokens - dropped) };
}
