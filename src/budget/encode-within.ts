import type { BoundedEncoding, Tokenizer } from './tokenizer.js';

/** `tokenizer.encodeWithin`, or the whole encoding for tokenizers that do not offer it. */
export async function encodeWithin(
  tokenizer: Tokenizer,
  text: string,
  limitTokens: number,
  from: 'start' | 'end',
  resume?: BoundedEncoding,
): Promise<BoundedEncoding> {
  if (tokenizer.encodeWithin) return tokenizer.encodeWithin(text, limitTokens, from, resume);
  const tokens = await tokenizer.encode(text);
  return { tokens, start: 0, end: text.length, complete: true };
}
