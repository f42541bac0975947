import type { ContextError } from '../errors.js';
import type { AssembledBody } from '../render/assemble-body.js';
import type { EscapedText } from '../render/escaped-text.js';
import { frameResource } from '../render/frame-resource.js';
import type { BlockProvenance, ModelCapabilities } from '../types.js';
import { budgetFailure } from './budget-failure.js';
import { checkComposeStop } from './check-compose-stop.js';
import type { ComposableAttachment, ComposeOptions, FrameCost } from './composable-attachment.js';
import { frameFactsKey } from './frame-facts-key.js';
import { type BodyMeasure, measureBody } from './measure-body.js';
import { type BudgetDecision, planBudget } from './plan-budget.js';
import { cutOverheadTexts, measureCutOverhead } from './smallest-useful-cut.js';
import type { Tokenizer } from './tokenizer.js';

/** What one attachment costs whole, and what a cut of it costs before any content. */
export type Cost = FrameCost;

/** One attachment with its body as this turn's model sees it. */
export interface AttachmentBody {
  readonly item: ComposableAttachment;
  readonly body: AssembledBody;
}

/** One attachment as planned: how far its body was counted, what it costs, and its share. */
export interface PlannedAttachment extends AttachmentBody {
  readonly measure: BodyMeasure;
  readonly cost: Cost;
  readonly decision: BudgetDecision;
}

// Rounds that count further into bodies the plan gave more than was counted.
const maxMeasureRounds = 4;
// Counting a little past a share saves a round when shares come out uneven; a round goes on from
// where the last one stopped, so the slack need only cover small shifts.
const shareSlack = 16;
// How far past an equal share a body that may fit whole in it is counted.
const wholeSlack = 64;
// Characters a token in a guess at a frame's and marker's count: low, as they run 3 and more.
const charsPerOverheadToken = 4;

/**
 * Measures and plans together. Each body is counted only as far as its share could reach: fair
 * sharing counts every body about as far as an equal share's cut would show, and further (going
 * on from there) only where the plan hands out more, so the total counted follows the budget, not
 * the number or size of the resources.
 * An attachment whose counting throws is entered in `failures` (by its index) and planned out;
 * those already there are not counted at all. The others are planned without it.
 * Returns one record per attachment, in the order given.
 */
export async function planShares(
  attachments: readonly AttachmentBody[],
  tokenizer: Tokenizer,
  options: ComposeOptions,
  available: number,
  failures: Map<number, ContextError> = new Map(),
): Promise<PlannedAttachment[]> {
  const equalShare = Math.ceil(available / attachments.length);
  // One attachment's throw is its own failure, never the turn's.
  const guarded = async <Value>(
    index: number,
    fallback: Value,
    count: () => Promise<Value>,
  ): Promise<Value> => {
    if (failures.has(index)) return fallback;
    try {
      return await count();
    } catch (error) {
      failures.set(index, budgetFailure(error, (attachments[index] as AttachmentBody).item));
      return fallback;
    }
  };
  // One after the other, in budget rank: the stop (see checkComposeStop) keeps out those not yet
  // counted, lowest ranks first. One that was counted is composed to the end: the rest of its
  // work is bounded by its share, and it is never shown in part for want of time. The first in
  // rank is always counted: a turn that waited out its deadline for a server that never answered
  // still answers with what was ready (its count is bounded by its share).
  let measured: (AttachmentBody & { ceiling: number; measure: BodyMeasure })[] = [];
  for (const [index, attachment] of attachments.entries()) {
    const ceiling = Math.max(0, Math.min(attachment.item.capTokens ?? available, available));
    const measure = await guarded(index, uncounted, () => {
      if (index > 0) checkComposeStop(options.stopAt, attachment.item);
      return firstMeasure(attachment, ceiling);
    });
    measured.push({ ...attachment, ceiling, measure });
  }
  // How far a body is counted first (see above).
  async function firstMeasure(attachment: AttachmentBody, ceiling: number): Promise<BodyMeasure> {
    if (options.strategy !== 'fair') return measureCached(attachment, ceiling, tokenizer, options);
    // A cut gets its share less its frame and marker: count that far first. A body that may
    // yet fit whole in an equal share is counted on to it, so the plan sees its exact count.
    const cutShare = Math.min(ceiling, Math.max(0, equalShare - guessCutOverhead(attachment)) + shareSlack);
    const wholeShare = Math.min(ceiling, equalShare + wholeSlack);
    const measure = await measureCached(attachment, cutShare, tokenizer, options);
    if (measure.estimated && cutShare < wholeShare && measure.originalTokens <= wholeShare)
      return measureCached(attachment, wholeShare, tokenizer, options, measure);
    return measure;
  }
  for (let round = 0; ; round++) {
    const costed = await Promise.all(
      measured.map(async (attachment, index) => ({
        ...attachment,
        cost: await guarded(index, noCost, () =>
          frameCostOf(attachment.item, attachment.measure, tokenizer, options),
        ),
      })),
    );
    // Failed attachments are left out of the plan: the others share the budget.
    const planning = costed.flatMap((attachment, index) => (failures.has(index) ? [] : [attachment]));
    const decisions = planBudget(
      planning.map(({ item, cost }) => ({
        fullTokens: cost.fullTokens,
        truncatedOverheadTokens: cost.truncatedOverheadTokens,
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
    // planBudget answers one decision per item, in order.
    const decided = new Map(planning.map((attachment, position) => [attachment, decisions[position]]));
    const planned = costed.map((attachment) => ({
      ...attachment,
      decision: decided.get(attachment) ?? (decided.has(attachment) ? omittedByPlan : failedInCounting),
    }));
    const short = (attachment: (typeof planned)[number]) =>
      attachment.measure.estimated &&
      attachment.decision.fate === 'truncated' &&
      attachment.decision.contentTokens > attachment.measure.head.tokens.length;
    // Past the stop nothing more is counted: a cut reaching past what was counted of its body is
    // cut there instead (the share left over goes unused), so what follows is bounded by the counts.
    const stopped = options.stopAt !== undefined && performance.now() >= options.stopAt;
    if (!planned.some(short) || round === maxMeasureRounds || stopped) {
      return planned.map((attachment) => {
        const { item, body, measure, cost } = attachment;
        const decision =
          stopped && short(attachment) ? cutAtCounted(attachment, options.minTokens) : attachment.decision;
        return { item, body, measure, cost, decision };
      });
    }
    measured = await Promise.all(
      planned.map(async (attachment, index) => {
        if (!short(attachment) || attachment.decision.fate !== 'truncated') return attachment;
        const limit = Math.min(attachment.ceiling, attachment.decision.contentTokens + shareSlack);
        return {
          ...attachment,
          measure: await guarded(index, uncounted, () =>
            measureCached(attachment, limit, tokenizer, options, attachment.measure),
          ),
        };
      }),
    );
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

const omittedByPlan: BudgetDecision = { fate: 'omitted', reason: 'the budget plan gave it no share' };
const omittedAtStop: BudgetDecision = {
  fate: 'omitted',
  reason: 'the turn deadline passed before enough of it was counted',
};
const failedInCounting: BudgetDecision = { fate: 'omitted', reason: 'its content could not be counted' };
// What a failed attachment is planned with: nothing counted, nothing to pay.
const uncounted: BodyMeasure = {
  originalTokens: 0,
  estimated: false,
  head: { tokens: new Uint32Array(0), start: 0, end: 0, complete: true },
};
const noCost: Cost = { fullTokens: 0, truncatedOverheadTokens: 0, markerTokens: 0, briefMarkerTokens: 0 };

/** A cut of what was counted of a body, or its omission when that is less than a useful cut. */
function cutAtCounted(
  { measure, cost }: { readonly measure: BodyMeasure; readonly cost: Cost },
  minTokens: number,
): BudgetDecision {
  const contentTokens = measure.head.tokens.length;
  if (contentTokens < minTokens) return omittedAtStop;
  return { fate: 'truncated', tokens: contentTokens + cost.truncatedOverheadTokens, contentTokens };
}

/** measureFrame, through the derived cache: a frame's cost depends only on what it names. */
async function frameCostOf(
  item: ComposableAttachment,
  measure: BodyMeasure,
  tokenizer: Tokenizer,
  options: ComposeOptions,
): Promise<Cost> {
  const memo = options.derived;
  if (!memo) return measureFrame(item, measure, tokenizer);
  const key = `${tokenizer.name}|${frameFactsKey(item.provenance)}|${measure.originalTokens}|${measure.estimated}`;
  const known = memo.frameCost(key);
  if (known) return known;
  const cost = await measureFrame(item, measure, tokenizer);
  memo.keepFrameCost(key, cost);
  return cost;
}

async function measureFrame(
  item: ComposableAttachment,
  measure: BodyMeasure,
  tokenizer: Tokenizer,
): Promise<Cost> {
  const provenance = provenanceOf(item, measure);
  const [wholeTokens, cut] = await Promise.all([
    // A body counted only in part has an estimated whole cost: the cut frame's count stands in
    // for the whole frame's (they differ only in `truncated`), and a body planned whole on such an
    // estimate is counted as it renders, then cut if it is over (see fitRendering).
    measure.estimated ? undefined : tokenizer.count(frameResource({ ...provenance, truncated: false }, '')),
    measureCutOverhead({ ...provenance, originalTokens: measure.originalTokens }, tokenizer),
  ]);
  return {
    fullTokens: (wholeTokens ?? cut.frameTokens) + measure.originalTokens,
    truncatedOverheadTokens: cut.frameTokens + cut.markerTokens,
    markerTokens: cut.markerTokens,
    briefMarkerTokens: cut.briefMarkerTokens,
  };
}

/** measureBody, through the derived cache when the content has a key (`earlier`: this turn's). */
async function measureCached(
  { item, body }: AttachmentBody,
  limit: number,
  tokenizer: Tokenizer,
  options: ComposeOptions,
  earlier?: BodyMeasure,
): Promise<BodyMeasure> {
  const text = lazilyRead(body, options) ?? body.body;
  if (item.contentKey === undefined || !options.derived) return measureBody(text, limit, tokenizer, earlier);
  const key = `${item.contentKey}|${tokenizer.name}|${modelKey(options.model)}`;
  return options.derived.measureOnce(
    key,
    limit,
    () => measureBody(text, limit, tokenizer, earlier),
    item.provenance.scope === 'message',
    earlier !== undefined,
  );
}

/**
 * What a cut of the attachment might cost before content (frame and longest marker), guessed
 * from their length at 4 characters a token without counting: the frame's count depends on the
 * body's count, which the guess is for. Frames run 3 characters a token and more, so the guess
 * is low, and a first share less it is counted a little past what the plan will give.
 */
function guessCutOverhead({ item, body }: AttachmentBody): number {
  // The body's length stands in for its count, which is not known yet: a guess needs only about
  // as many digits (a token is a character or more, but for rare characters and emoji). A lazily
  // escaped body's raw length: escaping it whole to learn its length would defeat the laziness.
  const { frame, marker } = cutOverheadTexts({
    ...item.provenance,
    originalTokens: body.escaped?.raw.length ?? body.body.length,
    originalTokensEstimated: true,
  });
  return Math.floor((frame.length + marker.length) / charsPerOverheadToken);
}

/**
 * The body's lazy escaping when a turn reads only its head: a head cut (or a body shown whole) is
 * counted and cut on escaped prefixes; tail, head-tail and relevant cuts read the whole body, so it
 * is counted whole too. Planning and rendering both ask here, so they read the same text.
 */
export function lazilyRead(body: AssembledBody, options: ComposeOptions): EscapedText | undefined {
  return (options.truncation ?? 'head') === 'head' ? body.escaped : undefined;
}

/** The body depends on which media the model takes in (parts or placeholders). */
export function modelKey(model: ModelCapabilities | undefined): string {
  return `${model?.images ? 'i' : ''}${model?.audio ? 'a' : ''}${model?.pdf ? 'p' : ''}`;
}
