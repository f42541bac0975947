import type { TruncationRequest } from '../../src/budget/truncate/truncation-strategy.js';
import type { ElidedRange } from '../../src/budget/truncation-marker.js';
import { createCharTokenizer } from './char-tokenizer.js';

/** A marker that shows its range and whether it is an estimate: `[~100-700]`. */
export function rangeMarker(range: ElidedRange, estimated: boolean): string {
  return `[${estimated ? '~' : ''}${range.startToken}-${range.endToken}]`;
}

/**
 * A request to cut `body` with the one-token-per-code-point tokenizer: its original count is its
 * length in code points, no prefix is pinned, a marker costs nothing extra and nothing is
 * estimated, unless `overrides` says otherwise.
 */
export function truncationRequest(
  body: string,
  overrides: Partial<TruncationRequest> = {},
): TruncationRequest {
  return {
    body,
    pinnedChars: 0,
    contentTokens: 10,
    markerTokens: 0,
    originalTokens: Array.from(body).length,
    estimated: false,
    tokenizer: createCharTokenizer({ bounded: true, prefix: true }).tokenizer,
    lineAware: false,
    marker: rangeMarker,
    ...overrides,
  };
}
