import { type AssembledBody, assembleBody } from '../render/assemble-body.js';
import { contextPreamble, frameResource } from '../render/frame-resource.js';
import type { ContextBlock, MediaPart, OmittedContent } from '../types.js';
import type { ComposableAttachment, ComposeOptions } from './composable-attachment.js';
import type { BodyMeasure } from './measure-body.js';
import type { BudgetDecision } from './plan-budget.js';
import { type Cost, planShares, provenanceOf } from './plan-shares.js';
import type { Tokenizer } from './tokenizer.js';
import { truncationStrategies } from './truncate/truncation-strategies.js';
import { truncationMarker } from './truncation-marker.js';

export type { ComposableAttachment, ComposeOptions } from './composable-attachment.js';

export interface ComposedAttachment {
  readonly decision: BudgetDecision;
  /** Tokens of this attachment's block; 0 when omitted. */
  readonly tokens: number;
  readonly originalTokens: number;
  readonly originalTokensEstimated: boolean;
  /** Items this turn's model is not shown (binary, invalid UTF-8, media it does not accept). */
  readonly omittedContents: readonly OmittedContent[];
  /** False when nothing in it is text or a part the model takes. */
  readonly injectable: boolean;
}

export interface ComposedContext {
  readonly blocks: ContextBlock[];
  readonly usedTokens: number;
  /** Parallel to the input. */
  readonly attachments: ComposedAttachment[];
}

// Re-planning after the exact count is rare (token merges across cuts, line-aware cuts); a few
// rounds suffice because each one removes at least the measured excess. Should they not,
// nothing is injected rather than something over budget.
const maxRefinements = 8;
// Rounds that hand tokens a cut left unused back to cut attachments.
const maxGrowRounds = 3;

/**
 * Budget → render for one turn: plans shares, cuts with visible markers, frames, then counts
 * the rendering with the same tokenizer and shrinks until both the turn's `maxTokens` and every
 * attachment's own cap hold, preamble, frames and markers included. Large bodies are counted
 * only as far as the budget needs, so the cost follows the budget, not the resources.
 */
export async function composeContext(
  items: readonly ComposableAttachment[],
  tokenizer: Tokenizer,
  options: ComposeOptions,
): Promise<ComposedContext> {
  const bodies = items.map((item) => assembleBody(item.sections, options.model));
  if (items.length === 0) return { blocks: [], usedTokens: 0, attachments: [] };
  const maxTokens = Math.floor(options.maxTokens * (1 - (options.safetyMargin ?? 0)));
  const available = maxTokens - (await tokenizer.count(contextPreamble));
  const { measures, costs, decisions } = await planShares(items, bodies, tokenizer, options, available);
  const render = (index: number, decision: BudgetDecision) =>
    renderAttachment(
      items[index] as ComposableAttachment,
      bodies[index] as AssembledBody,
      measures[index] as BodyMeasure,
      costs[index] as Cost,
      decision,
      tokenizer,
      options,
    );

  let fitted: Fitted | undefined;
  for (let round = 0; round <= maxRefinements; round++) {
    const attempt = await evaluate(items, decisions, render, tokenizer, maxTokens, options.renderOrder);
    if (attempt.excess <= 0 && attempt.overCap.length === 0) {
      fitted = attempt;
      break;
    }
    for (const { index, excess: over } of attempt.overCap)
      shrink(decisions, costs, index, over, options.minTokens);
    if (attempt.excess > 0 && attempt.overCap.length === 0) {
      shrink(decisions, costs, largest(decisions), attempt.excess, options.minTokens);
    }
  }
  if (!fitted) return omitAll(items, measures, bodies);
  fitted = await grow(fitted, items, decisions, costs, render, tokenizer, maxTokens, options.renderOrder);

  return {
    blocks: fitted.blocks,
    usedTokens: fitted.usedTokens,
    attachments: fitted.decisions.map((decision, index) => ({
      decision,
      tokens: fitted.tokens[index] ?? 0,
      originalTokens: measures[index]?.originalTokens ?? 0,
      originalTokensEstimated: measures[index]?.estimated ?? false,
      omittedContents: bodies[index]?.omittedContents ?? [],
      injectable: bodies[index]?.injectable ?? false,
    })),
  };
}

// --- Internal helpers ---

type ResourceBlock = ContextBlock & { kind: 'resource' };
type Render = (index: number, decision: BudgetDecision) => Promise<ResourceBlock | undefined>;

interface Fitted {
  readonly blocks: ContextBlock[];
  readonly usedTokens: number;
  readonly tokens: number[];
  readonly decisions: BudgetDecision[];
  readonly excess: number;
  readonly overCap: { index: number; excess: number }[];
}

async function renderAttachment(
  item: ComposableAttachment,
  assembled: AssembledBody,
  measure: BodyMeasure,
  cost: Cost,
  decision: BudgetDecision,
  tokenizer: Tokenizer,
  options: ComposeOptions,
): Promise<ResourceBlock | undefined> {
  if (decision.fate === 'omitted') return undefined;
  const base = provenanceOf(item, measure);
  if (decision.fate === 'whole') {
    const provenance = { ...base, truncated: false };
    const parts = assembled.parts.map(({ part }) => part);
    return withParts(
      { kind: 'resource', text: frameResource(provenance, assembled.body), provenance },
      parts,
    );
  }
  const strategy = truncationStrategies[options.truncation ?? 'head'];
  const cut = await strategy({
    body: assembled.body,
    pinnedChars: assembled.pinnedChars,
    contentTokens: Math.max(0, decision.contentTokens),
    markerTokens: cost.markerTokens,
    originalTokens: measure.originalTokens,
    estimated: measure.estimated,
    headEncoding: measure.head,
    tokenizer,
    lineAware: options.lineAware ?? true,
    ...(options.query !== undefined && { query: options.query }),
    marker: (range, estimated) =>
      truncationMarker({
        server: item.provenance.server,
        uri: item.provenance.uri,
        originalTokens: measure.originalTokens,
        estimated: estimated || measure.estimated,
        range,
      }),
  });
  const provenance = { ...base, truncated: true };
  // A part whose naming line was cut away goes with it: the marker accounts for both.
  const parts = assembled.parts.filter(({ line }) => cut.text.includes(line)).map(({ part }) => part);
  return withParts({ kind: 'resource', text: frameResource(provenance, cut.text), provenance }, parts);
}

function withParts(block: ResourceBlock, parts: readonly MediaPart[]): ResourceBlock {
  return parts.length === 0 ? block : { ...block, parts };
}

/** Renders every attachment with the current decisions and counts what that costs. */
async function evaluate(
  items: readonly ComposableAttachment[],
  decisions: BudgetDecision[],
  render: Render,
  tokenizer: Tokenizer,
  maxTokens: number,
  renderOrder: readonly number[],
): Promise<Fitted> {
  const rendered = await Promise.all(decisions.map((decision, index) => render(index, decision)));
  const blocks = assemble(rendered, renderOrder);
  const tokens = await Promise.all(rendered.map((block) => (block ? tokenizer.count(block.text) : 0)));
  // Every block ends with ">\n\n" and the next starts with "<" (the preamble ends ".\n\n"): the
  // pre-tokenizer always splits there, so no token spans a join and the whole rendering counts
  // exactly as the sum of its blocks (the property test checks this against a full count).
  const usedTokens =
    blocks.length === 0
      ? 0
      : (await tokenizer.count(contextPreamble)) + tokens.reduce((sum, count) => sum + count, 0);
  const overCap = items.flatMap((item, index) => {
    const excess = (tokens[index] ?? 0) - (item.capTokens ?? Number.POSITIVE_INFINITY);
    return excess > 0 ? [{ index, excess }] : [];
  });
  return { blocks, usedTokens, tokens, decisions: [...decisions], excess: usedTokens - maxTokens, overCap };
}

/**
 * Cuts rarely land on their exact share (a dropped partial character, a line end, a marker
 * shorter than its worst case): hand what is left to cut attachments that can use it, keeping
 * the result only when it still fits.
 */
async function grow(
  fitted: Fitted,
  items: readonly ComposableAttachment[],
  decisions: BudgetDecision[],
  costs: readonly Cost[],
  render: Render,
  tokenizer: Tokenizer,
  maxTokens: number,
  renderOrder: readonly number[],
): Promise<Fitted> {
  let best = fitted;
  for (let round = 0; round < maxGrowRounds; round++) {
    const slack = maxTokens - best.usedTokens;
    if (slack <= 0) break;
    const candidate = [...best.decisions];
    let changed = false;
    let left = slack;
    for (const [index, decision] of candidate.entries()) {
      if (decision.fate !== 'truncated' || left <= 0) continue;
      const cap = Math.min(
        items[index]?.capTokens ?? Number.POSITIVE_INFINITY,
        costs[index]?.fullTokens ?? 0,
      );
      const room = cap - (best.tokens[index] ?? 0);
      const extra = Math.min(left, room);
      if (extra <= 0) continue;
      candidate[index] = {
        fate: 'truncated',
        tokens: decision.tokens + extra,
        contentTokens: decision.contentTokens + extra,
      };
      left -= extra;
      changed = true;
    }
    if (!changed) break;
    const attempt = await evaluate(items, candidate, render, tokenizer, maxTokens, renderOrder);
    if (attempt.excess > 0 || attempt.overCap.length > 0 || attempt.usedTokens <= best.usedTokens) break;
    best = attempt;
    decisions.splice(0, decisions.length, ...candidate);
  }
  return best;
}

function assemble(
  rendered: readonly (ContextBlock | undefined)[],
  renderOrder: readonly number[],
): ContextBlock[] {
  const blocks = renderOrder.map((index) => rendered[index]).filter((block) => block !== undefined);
  return blocks.length === 0 ? [] : [{ kind: 'preamble', text: contextPreamble }, ...blocks];
}

/** The attachment holding the most tokens, or -1. */
function largest(decisions: readonly BudgetDecision[]): number {
  let found = -1;
  let most = -1;
  for (const [index, decision] of decisions.entries()) {
    if (decision.fate !== 'omitted' && decision.tokens > most) {
      found = index;
      most = decision.tokens;
    }
  }
  return found;
}

/** Takes `excess` tokens from one attachment; omits it if that leaves less than a useful cut. */
function shrink(
  decisions: BudgetDecision[],
  costs: readonly Cost[],
  index: number,
  excess: number,
  minTokens: number,
): void {
  const decision = decisions[index];
  const cost = costs[index];
  if (!decision || decision.fate === 'omitted' || !cost) return;
  const tokens = decision.tokens - excess;
  const contentTokens = tokens - cost.truncatedOverheadTokens;
  decisions[index] =
    contentTokens >= minTokens
      ? { fate: 'truncated', tokens, contentTokens }
      : { fate: 'omitted', reason: 'the exact count of the rendered context left it too little room' };
}

function omitAll(
  items: readonly ComposableAttachment[],
  measures: readonly BodyMeasure[],
  bodies: readonly AssembledBody[],
): ComposedContext {
  return {
    blocks: [],
    usedTokens: 0,
    attachments: items.map((_, index) => ({
      decision: { fate: 'omitted', reason: 'the rendered context could not be fitted to the budget' },
      tokens: 0,
      originalTokens: measures[index]?.originalTokens ?? 0,
      originalTokensEstimated: measures[index]?.estimated ?? false,
      omittedContents: bodies[index]?.omittedContents ?? [],
      injectable: bodies[index]?.injectable ?? false,
    })),
  };
}
