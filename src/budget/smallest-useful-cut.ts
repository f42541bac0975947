import { frameResource } from '../render/frame-resource.js';
import type { BlockProvenance } from '../types.js';
import { smallestCutTokens } from './plan-budget.js';
import type { Tokenizer } from './tokenizer.js';
import { longestTruncationMarker } from './truncation-marker.js';

/** What a cut of one attachment costs before any content: its cut frame and its longest marker. */
export interface CutOverhead {
  readonly frameTokens: number;
  readonly markerTokens: number;
  /** The longest brief marker: what each further gap of a `relevant` cut costs. */
  readonly briefMarkerTokens: number;
}

/** The provenance a frame shows; the original count as the frame and the marker print it. */
export type CutFacts = Omit<BlockProvenance, 'truncated'> & { readonly originalTokens: number };

/**
 * Tokens of the frame of a cut attachment (empty body) and of the longest truncation marker
 * its facts can produce. The planner's cost of a cut and the pin-time floor both come from here.
 */
export async function measureCutOverhead(facts: CutFacts, tokenizer: Tokenizer): Promise<CutOverhead> {
  const { frame, marker, briefMarker } = cutOverheadTexts(facts);
  const [frameTokens, markerTokens, briefMarkerTokens] = await Promise.all([
    tokenizer.count(frame),
    tokenizer.count(marker),
    tokenizer.count(briefMarker),
  ]);
  return { frameTokens, markerTokens, briefMarkerTokens };
}

/**
 * What a cut adds before any content: its frame (marked truncated, no body) and its longest
 * marker, and the longest brief marker each further gap adds.
 */
export function cutOverheadTexts(facts: CutFacts): {
  readonly frame: string;
  readonly marker: string;
  readonly briefMarker: string;
} {
  const markerFacts = {
    server: facts.server,
    uri: facts.uri,
    originalTokens: facts.originalTokens,
    estimated: facts.originalTokensEstimated === true,
  };
  return {
    frame: frameResource({ ...facts, truncated: true }, ''),
    marker: longestTruncationMarker(markerFacts),
    // A `relevant` cut's markers are estimates (`~`) whatever the count.
    briefMarker: longestTruncationMarker({ ...markerFacts, estimated: true, brief: true }),
  };
}

/** What a pin names before any content is known: where it points and which scope holds it. */
export interface CutTarget {
  readonly scope: BlockProvenance['scope'];
  readonly server: string;
  readonly uri: string;
}

/**
 * The smallest useful cut of a target whose content is not known yet (pin time): its frame and
 * marker with the shortest media type, hash and counts any content could give them, plus
 * `minTokens`. A cap below this can never carry a cut of that target, so the planner would omit
 * the attachment on every turn its content does not fit whole; a pin store refuses such caps.
 */
export async function smallestUsefulCut(
  target: CutTarget,
  tokenizer: Tokenizer,
  minTokens: number,
): Promise<number> {
  const overhead = await measureCutOverhead(
    {
      ...target,
      mimeType: '',
      sha256: '0'.repeat(64),
      // Content that needs a cut has more than minTokens tokens: the shortest such count.
      originalTokens: minTokens + 1,
    },
    tokenizer,
  );
  return smallestCutTokens(overhead.frameTokens + overhead.markerTokens, minTokens);
}
