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
 * `earlier`, a measure of the same body to a lower limit, lets the tokenizer go on from its end.
 */
export async function measureBody(
  body: string,
  limitTokens: number,
  tokenizer: Tokenizer,
  earlier?: BodyMeasure,
): Promise<BodyMeasure> {
  // Counting further goes on from where an earlier measure of this body stopped.
  const head = await encodeWithin(tokenizer, body, Math.max(0, limitTokens), 'start', earlier?.head);
  if (head.complete) return { originalTokens: head.tokens.length, estimated: false, head };
  if (head.knownCount !== undefined) return { originalTokens: head.knownCount, estimated: false, head };
  const extrapolated = Math.round((head.tokens.length * body.length) / Math.max(1, head.end - head.start));
  return {
    originalTokens: Math.max(limitTokens + 1, head.tokens.length + 1, extrapolated),
    estimated: true,
    head,
  };
}
