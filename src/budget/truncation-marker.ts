import { toSafeJson } from '../render/to-safe-json.js';

/** A stretch of the original content, in tokens, that a cut left out. */
export interface ElidedRange {
  /** First omitted token (the offset to read on from). */
  readonly startToken: number;
  /** One past the last omitted token. */
  readonly endToken: number;
}

export interface TruncationFacts {
  readonly server: string;
  readonly uri: string;
  readonly originalTokens: number;
  /** The original count (and so the offsets) are extrapolated, not counted. */
  readonly estimated?: boolean;
  readonly range: ElidedRange;
}

/**
 * The visible note where content was cut: what was left out, and how to read on (the
 * `read_mcp_resource` exploration tool takes a token offset). A cut that runs to the end reads
 * "omitted after token N"; any other range names its tokens and ends with a newline.
 */
export function truncationMarker(facts: TruncationFacts): string {
  const about = facts.estimated ? '~' : '';
  const { startToken, endToken } = facts.range;
  const omitted = Math.max(0, endToken - startToken);
  // Server-controlled facts go in as safe JSON: a URI cannot close the frame the marker sits in.
  const readMore = toSafeJson({ server: facts.server, uri: facts.uri, offset: startToken });
  const of = `${about}${omitted} of ${about}${facts.originalTokens} tokens omitted`;
  if (endToken >= facts.originalTokens) {
    return `\n[truncated: ${of} after token ${about}${startToken}; read more with read_mcp_resource ${readMore}]`;
  }
  return `\n[truncated: ${of} (tokens ${about}${startToken}–${about}${endToken}); read more with read_mcp_resource ${readMore}]\n`;
}

/** The longest marker these facts can produce: every number as long as the original count. */
export function longestTruncationMarker(facts: Omit<TruncationFacts, 'range'>): string {
  const widest = facts.originalTokens;
  return truncationMarker({
    ...facts,
    originalTokens: widest + 1,
    range: { startToken: widest, endToken: widest },
  });
}
