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
  /**
   * A later marker of a cut with several gaps (`relevant`): the range only. The cut's first
   * marker says how to read on; repeating that and the URI at every gap made a third of a
   * `relevant` context markers (244 gaps, 11.5k of 32k tokens, in the hostLike benchmark).
   */
  readonly brief?: boolean;
}

/**
 * The visible note where content was cut: what was left out, and how to read on (the
 * `read_mcp_resource` exploration tool takes a token offset). A cut that runs to the end reads
 * "omitted after token N"; any other range names its tokens and ends with a newline. A brief
 * marker is the same note without the way to read on.
 */
export function truncationMarker(facts: TruncationFacts): string {
  const about = facts.estimated ? '~' : '';
  const { startToken, endToken } = facts.range;
  const omitted = Math.max(0, endToken - startToken);
  const toEnd = endToken >= facts.originalTokens;
  if (facts.brief) {
    const what = `${about}${omitted} tokens omitted`;
    return toEnd
      ? `\n[truncated: ${what} after token ${about}${startToken}]`
      : `\n[truncated: ${what} (tokens ${about}${startToken}-${about}${endToken})]\n`;
  }
  // Server-controlled facts go in as safe JSON: a URI cannot close the frame the marker sits in.
  const readMore = toSafeJson({ server: facts.server, uri: facts.uri, offset: startToken });
  const of = `${about}${omitted} of ${about}${facts.originalTokens} tokens omitted`;
  if (toEnd) {
    return `\n[truncated: ${of} after token ${about}${startToken}; read more with read_mcp_resource ${readMore}]`;
  }
  return `\n[truncated: ${of} (tokens ${about}${startToken}-${about}${endToken}); read more with read_mcp_resource ${readMore}]\n`;
}

/**
 * The longest marker these facts can produce: every number as long as the original count, in
 * the form that names a range inside the content (the longer of the two, brief or not).
 */
export function longestTruncationMarker(facts: Omit<TruncationFacts, 'range'>): string {
  const widest = facts.originalTokens;
  return truncationMarker({
    ...facts,
    originalTokens: widest + 1,
    range: { startToken: widest, endToken: widest },
  });
}
