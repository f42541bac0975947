import type { BoundedEncoding } from './tokenizer.js';

/**
 * A bounded encoding for a tokenizer that is not piecewise: the tokens of a slice of its own from
 * the start (or the end) of `text`, the slice grown until they are more than `limitTokens` (or it
 * is the whole text), so the cost follows the limit, not the text. Near the cut they may differ
 * from the whole text's (merges span it); the budget counts such a tokenizer's renderings whole,
 * so a cut shown is counted as it stands.
 */
export async function encodeSliceWithin(
  text: string,
  limitTokens: number,
  from: 'start' | 'end',
  encode: (slice: string) => Promise<Uint32Array>,
): Promise<BoundedEncoding> {
  for (let chars = Math.max(256, (limitTokens + 1) * 4); ; chars *= 2) {
    if (chars >= text.length)
      return { tokens: await encode(text), start: 0, end: text.length, complete: true };
    const start = from === 'start' ? 0 : pairStart(text, text.length - chars);
    const end = from === 'start' ? pairEnd(text, chars) : text.length;
    const tokens = await encode(text.slice(start, end));
    if (tokens.length > limitTokens) return { tokens, start, end, complete: false };
  }
}

// --- Internal helpers ---

/** `index`, moved past the low half of a surrogate pair it would split. */
function pairStart(text: string, index: number): number {
  const unit = text.charCodeAt(index);
  return unit >= 0xdc00 && unit <= 0xdfff ? index + 1 : index;
}

/** `index`, moved before the high half of a surrogate pair it would split. */
function pairEnd(text: string, index: number): number {
  const unit = text.charCodeAt(index - 1);
  return unit >= 0xd800 && unit <= 0xdbff ? index - 1 : index;
}
