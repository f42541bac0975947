import { encodeWithin } from './encode-within.js';
import type { BoundedEncoding, Tokenizer } from './tokenizer.js';

export interface BodyMeasure {
  readonly originalTokens: number;
  /** True when the body was counted only up to the limit and the total extrapolated. */
  readonly estimated: boolean;
  /** The tokens counted from the start, for truncation to reuse. */
  readonly head: BoundedEncoding;
}

/**
 * Counts a body only as far as `limitTokens`: a body that cannot fit gets an extrapolated
 * total (flagged), so fitting a 5 MB resource into 8k tokens costs about what 64 KB does. The
 * estimate is always above the limit, so the planner treats it exactly as it would the truth.
 */
export async function measureBody(
  body: string,
  limitTokens: number,
  tokenizer: Tokenizer,
): Promise<BodyMeasure> {
  const head = await encodeWithin(tokenizer, body, Math.max(0, limitTokens), 'start');
  if (head.complete) return { originalTokens: head.tokens.length, estimated: false, head };
  if (head.knownCount !== undefined) return { originalTokens: head.knownCount, estimated: false, head };
  const extrapolated = Math.round((head.tokens.length * body.length) / Math.max(1, head.end - head.start));
  return {
    originalTokens: Math.max(limitTokens + 1, head.tokens.length + 1, extrapolated),
    estimated: true,
    head,
  };
}
