import type { EscapedText } from '../render/escaped-text.js';
import { encodeWithin } from './encode-within.js';
import type { BoundedEncoding, Tokenizer } from './tokenizer.js';

export interface BodyMeasure {
  readonly originalTokens: number;
  /** True when the body was counted only up to the limit and the total extrapolated. */
  readonly estimated: boolean;
  /** The tokens counted from the start, for truncation to reuse. */
  readonly head: BoundedEncoding;
}

// Raw characters of a lazily escaped body escaped for a first count to `limit` tokens: o200k and
// cl100k average about 4 characters a token on prose and code; twice that, so one prefix
// usually does. A prefix counted out before the limit is lengthened fourfold and counted on.
const firstCharsPerToken = 8;
const minimumPrefixChars = 4096;
const prefixGrowth = 4;

/**
 * Counts a body only as far as `limitTokens`: a body that cannot fit gets an extrapolated
 * total (flagged), so fitting a 5 MB resource into 8k tokens costs about what 64 KB does. The
 * estimate is always above the limit, so the planner treats it exactly as it would the truth.
 * `earlier`, a measure of the same body to a lower limit, lets the tokenizer go on from its end.
 * A lazily escaped body (`EscapedText`) is escaped only as far as it is counted.
 */
export async function measureBody(
  body: string | EscapedText,
  limitTokens: number,
  tokenizer: Tokenizer,
  earlier?: BodyMeasure,
): Promise<BodyMeasure> {
  const limit = Math.max(0, limitTokens);
  if (typeof body === 'string') {
    // Counting further goes on from where an earlier measure of this body stopped.
    const head = await encodeWithin(tokenizer, body, limit, 'start', earlier?.head);
    return measured(head, true, body.length, limit);
  }
  // The prefix covers what an earlier measure counted (escaping only lengthens text, so as many
  // raw characters as it counted escaped ones), and so any prefix counted on is one this extends.
  let chars = Math.max(minimumPrefixChars, limit * firstCharsPerToken, earlier?.head.end ?? 0);
  let shown = body.prefix(chars);
  let head = await encodeWithin(tokenizer, shown.text, limit, 'start', earlier?.head);
  while (head.complete && !shown.whole) {
    // Counted out before the limit: a prefix ends at a piece boundary, so counting goes on from it.
    chars *= prefixGrowth;
    shown = body.prefix(chars);
    head = await encodeWithin(tokenizer, shown.text, limit, 'start', head);
  }
  // The whole's escaped length, estimated: the raw length, lengthened as escaping lengthened the prefix.
  const length = shown.whole ? shown.text.length : (body.raw.length * shown.text.length) / shown.rawChars;
  return measured(head, shown.whole, length, limit);
}

// --- Internal helpers ---

/**
 * The measure a count from the start gives: exact when it covered the whole body (or the
 * tokenizer knew the whole body's count), else extrapolated from the characters it covered to the
 * body's length (for a body escaped only in part, an estimate of its length escaped).
 */
function measured(head: BoundedEncoding, whole: boolean, length: number, limit: number): BodyMeasure {
  if (whole && head.complete) return { originalTokens: head.tokens.length, estimated: false, head };
  if (whole && head.knownCount !== undefined)
    return { originalTokens: head.knownCount, estimated: false, head };
  const extrapolated = Math.round((head.tokens.length * length) / Math.max(1, head.end - head.start));
  return {
    originalTokens: Math.max(limit + 1, head.tokens.length + 1, extrapolated),
    estimated: true,
    head,
  };
}
