import { encodeWithin } from '../encode-within.js';
import { lastSafeBoundary } from '../find-safe-boundary.js';
import type { BoundedEncoding, Tokenizer } from '../tokenizer.js';
import { lineEndBefore } from './cut-at-line.js';

export interface Taken {
  readonly text: string;
  /** Tokens of `text` in the original encoding (offset bookkeeping for markers). */
  readonly tokens: number;
  /** The exact count of `text` on its own, when the encoding gives it (see Tokenizer.countPrefix). */
  readonly exactTokens?: number;
  /**
   * Without `exactTokens`: the exact count of `text.slice(0, chars)`, the longest prefix that
   * ends on a piece boundary the encoding gives, so only the rest needs counting.
   */
  readonly exactPrefix?: { readonly chars: number; readonly tokens: number };
}

/**
 * The first `limit` tokens of `body` as text, decoded from the counting pass's tokens (never
 * re-encoding the whole; a shorter counting pass is gone on from). A multi-byte character cut at
 * the end is dropped, not garbled.
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
      : await encodeWithin(tokenizer, body, limit, 'start', counted);
  const tokens = Math.min(limit, encoding.tokens.length);
  const text = tokenizer.decode(encoding.tokens.subarray(0, tokens));
  if (!lineAware) return withExactCount({ text, tokens }, body, encoding, tokenizer);
  const cut = lineEndBefore(text);
  if (cut === text.length) return withExactCount({ text, tokens }, body, encoding, tokenizer);
  const dropped = await tokenizer.count(text.slice(cut));
  return withExactCount(
    { text: text.slice(0, cut), tokens: Math.max(0, tokens - dropped) },
    body,
    encoding,
    tokenizer,
  );
}

// --- Internal helpers ---

/**
 * Adds the exact count of the taken text when its end is a piece boundary of the body; else
 * that of its longest prefix ending on a safe boundary (a line cut before an indented line ends
 * on none: a newline followed by a space is no piece boundary).
 */
function withExactCount(taken: Taken, body: string, encoding: BoundedEncoding, tokenizer: Tokenizer): Taken {
  // Decoding drops a cut character and maps invalid text to U+FFFD: then it is no prefix.
  if (!tokenizer.countPrefix || !body.startsWith(taken.text)) return taken;
  const exactTokens = tokenizer.countPrefix(body, encoding, taken.text.length);
  if (exactTokens !== undefined) return { ...taken, exactTokens };
  const chars = lastSafeBoundary(body, 0, taken.text.length);
  if (chars <= 0) return taken;
  const tokens = tokenizer.countPrefix(body, encoding, chars);
  return tokens === undefined ? taken : { ...taken, exactPrefix: { chars, tokens } };
}
