import type { AssembledBody } from '../render/assemble-body.js';
import { frameResource } from '../render/frame-resource.js';
import type { BlockProvenance, ModelCapabilities } from '../types.js';
import type { ComposableAttachment, ComposeOptions } from './composable-attachment.js';
import { type BodyMeasure, measureBody } from './measure-body.js';
import { type BudgetDecision, planBudget } from './plan-budget.js';
import type { Tokenizer } from './tokenizer.js';
import { longestTruncationMarker } from './truncation-marker.js';

/** What one attachment costs whole, and what a cut of it costs before any content. */
export interface Cost {
  readonly fullTokens: number;
  readonly truncatedOverheadTokens: number;
  readonly markerTokens: number;
}

export interface Shares {
  readonly measures: BodyMeasure[];
  readonly costs: Cost[];
  readonly decisions: BudgetDecision[];
}

// Rounds that count further into bodies the plan gave more than was counted.
const maxMeasureRounds = 4;
// Counting a little past an equal share saves a round when shares come out uneven.
const shareSlack = 64;

/**
 * Measures and plans together. Each body is counted only as far as its share could reach: fair
 * sharing starts every body at an equal share and counts further only where the plan hands out
 * more, so the total counted follows the budget, not the number or size of the resources.
 */
export async function planShares(
  items: readonly ComposableAttachment[],
  bodies: readonly AssembledBody[],
  tokenizer: Tokenizer,
  options: ComposeOptions,
  available: number,
): Promise<Shares> {
  const measure = (index: number, limit: number) =>
    measureCached(
      items[index] as ComposableAttachment,
      (bodies[index] as AssembledBody).body,
      limit,
      tokenizer,
      options,
    );
  const ceilings = items.map((item) => Math.max(0, Math.min(item.capTokens ?? available, available)));
  const firstShare =
    options.strategy === 'fair' ? Math.ceil(available / items.length) + shareSlack : available;
  let measures = await Promise.all(
    ceilings.map((ceiling, index) => measure(index, Math.min(ceiling, firstShare))),
  );
  for (let round = 0; ; round++) {
    const costs = await Promise.all(
      items.map((item, index) => measureFrame(item, measures[index] as BodyMeasure, tokenizer)),
    );
    const decisions = planBudget(
      items.map((item, index) => ({
        fullTokens: costs[index]?.fullTokens ?? 0,
        truncatedOverheadTokens: costs[index]?.truncatedOverheadTokens ?? 0,
        ...(item.capTokens !== undefined && { capTokens: item.capTokens }),
        scope: item.provenance.scope,
      })),
      {
        availableTokens: available,
        minTokens: options.minTokens,
        strategy: options.strategy,
        ...(options.reserve && { reservations: options.reserve }),
      },
    );
    const short = decisions.flatMap((decision, index) => {
      const counted = measures[index] as BodyMeasure;
      const needs = decision.fate === 'truncated' ? decision.contentTokens : 0;
      return counted.estimated && needs > counted.head.tokens.length ? [index] : [];
    });
    if (short.length === 0 || round === maxMeasureRounds) return { measures, costs, decisions };
    const next = [...measures];
    await Promise.all(
      short.map(async (index) => {
        const allocated = (decisions[index] as { tokens: number }).tokens;
        next[index] = await measure(index, Math.min(ceilings[index] ?? 0, allocated * 2));
      }),
    );
    measures = next;
  }
}

/** The provenance a frame shows: the attachment's, with the (possibly estimated) original count. */
export function provenanceOf(
  item: ComposableAttachment,
  measure: BodyMeasure,
): Omit<BlockProvenance, 'truncated'> {
  return {
    ...item.provenance,
    originalTokens: measure.originalTokens,
    ...(measure.estimated && { originalTokensEstimated: true }),
  };
}

// --- Internal helpers ---

async function measureFrame(
  item: ComposableAttachment,
  measure: BodyMeasure,
  tokenizer: Tokenizer,
): Promise<Cost> {
  const provenance = provenanceOf(item, measure);
  const whole = frameResource({ ...provenance, truncated: false }, '');
  const cut = frameResource({ ...provenance, truncated: true }, '');
  const marker = longestTruncationMarker({
    ...item.provenance,
    originalTokens: measure.originalTokens,
    estimated: measure.estimated,
  });
  const [wholeTokens, cutTokens, markerTokens] = await Promise.all([
    tokenizer.count(whole),
    tokenizer.count(cut),
    tokenizer.count(marker),
  ]);
  return {
    fullTokens: wholeTokens + measure.originalTokens,
    truncatedOverheadTokens: cutTokens + markerTokens,
    markerTokens,
  };
}

/** measureBody, through the derived cache when the content has a key. */
async function measureCached(
  item: ComposableAttachment,
  body: string,
  limit: number,
  tokenizer: Tokenizer,
  options: ComposeOptions,
): Promise<BodyMeasure> {
  if (item.contentKey === undefined || !options.derived) return measureBody(body, limit, tokenizer);
  const key = `${item.contentKey}|${tokenizer.name}|${modelKey(options.model)}`;
  return options.derived.measureOnce(key, limit, () => measureBody(body, limit, tokenizer));
}

/** The body depends on which media the model takes in (parts or placeholders). */
function modelKey(model: ModelCapabilities | undefined): string {
  return `${model?.images ? 'i' : ''}${model?.audio ? 'a' : ''}${model?.pdf ? 'p' : ''}`;
}
