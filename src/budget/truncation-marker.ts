export interface TruncationFacts {
  readonly server: string;
  readonly uri: string;
  /** Tokens of content shown before the cut. */
  readonly shownTokens: number;
  readonly originalTokens: number;
}

/**
 * The visible note that ends a cut attachment: what was left out, and how to read on
 * (the `read_mcp_resource` exploration tool takes a token offset).
 */
export function truncationMarker(facts: TruncationFacts): string {
  const omitted = facts.originalTokens - facts.shownTokens;
  const readMore = JSON.stringify({ server: facts.server, uri: facts.uri, offset: facts.shownTokens });
  return `\n[truncated: ${omitted} of ${facts.originalTokens} tokens omitted after token ${facts.shownTokens}; read more with read_mcp_resource ${readMore}]`;
}
