import { type BudgetDecision, planBudget } from '../budget/plan-budget.js';
import type { Tokenizer } from '../budget/tokenizer.js';
import { truncationMarker } from '../budget/truncation-marker.js';
import { contextPreamble, frameResource } from '../render/frame-resource.js';
import { renderText } from '../render/render-text.js';
import type { BlockProvenance, ContextBlock } from '../types.js';

/** Converted, escaped content ready for the budget, in budget rank order. */
export interface ComposableAttachment {
  readonly provenance: Omit<BlockProvenance, 'truncated'>;
  readonly body: string;
  readonly bodyTokens: Uint32Array;
  readonly capTokens?: number;
}

export interface ComposeOptions {
  readonly maxTokens: number;
  readonly minTokens: number;
  readonly strategy: 'fair' | 'priority';
  /** Render position of each attachment (the budget ranks narrowest first; rendering puts the stablest first). */
  readonly renderOrder: readonly number[];
}

export interface ComposedAttachment {
  readonly decision: BudgetDecision;
  /** Tokens of this attachment's block; 0 when omitted. */
  readonly tokens: number;
}

export interface ComposedContext {
  readonly blocks: ContextBlock[];
  readonly usedTokens: number;
  /** Parallel to the input. */
  readonly attachments: ComposedAttachment[];
}

// Re-planning after the exact count is rare (token merges across frame boundaries); a few
// rounds suffice because each one removes at least the measured excess. Should they not,
// nothing is injected rather than something over budget.
const maxRefinements = 8;

/**
 * Budget → render for one turn: plans shares, cuts with visible markers, frames, then counts
 * the whole rendering and each block with the same tokenizer and shrinks until both the turn's
 * `maxTokens` and every attachment's own cap hold, preamble, frames and markers included.
 */
export async function composeContext(
  items: readonly ComposableAttachment[],
  tokenizer: Tokenizer,
  options: ComposeOptions,
): Promise<ComposedContext> {
  if (items.length === 0) return { blocks: [], usedTokens: 0, attachments: [] };
  const preambleTokens = await tokenizer.count(contextPreamble);
  const costs = await Promise.all(items.map((item) => measure(item, tokenizer)));
  const decisions = planBudget(
    items.map((item, index) => ({
      fullTokens: costs[index]?.fullTokens ?? 0,
      truncatedOverheadTokens: costs[index]?.truncatedOverheadTokens ?? 0,
      ...(item.capTokens !== undefined && { capTokens: item.capTokens }),
    })),
    {
      availableTokens: options.maxTokens - preambleTokens,
      minTokens: options.minTokens,
      strategy: options.strategy,
    },
  );

  for (let round = 0; ; round++) {
    const rendered = items.map((item, index) =>
      renderAttachment(item, decisions[index] as BudgetDecision, tokenizer),
    );
    const blocks = assemble(rendered, options.renderOrder);
    const [usedTokens, tokens] = await Promise.all([
      blocks.length === 0 ? 0 : tokenizer.count(renderText(blocks)),
      Promise.all(rendered.map((block) => (block ? tokenizer.count(block.text) : 0))),
    ]);
    const overCap = items.flatMap((item, index) => {
      const excess = (tokens[index] ?? 0) - (item.capTokens ?? Number.POSITIVE_INFINITY);
      return excess > 0 ? [{ index, excess }] : [];
    });
    const excess = usedTokens - options.maxTokens;
    if ((excess <= 0 && overCap.length === 0) || round === maxRefinements) {
      if (excess > 0 || overCap.length > 0) return omitAll(items);
      return {
        blocks,
        usedTokens,
        attachments: decisions.map((decision, index) => ({ decision, tokens: tokens[index] ?? 0 })),
      };
    }
    for (const { index, excess: over } of overCap) shrink(decisions, costs, index, over, options.minTokens);
    if (excess > 0 && overCap.length === 0)
      shrink(decisions, costs, largest(decisions), excess, options.minTokens);
  }
}

// --- Internal helpers ---

interface Cost {
  readonly fullTokens: number;
  readonly truncatedOverheadTokens: number;
}

async function measure(item: ComposableAttachment, tokenizer: Tokenizer): Promise<Cost> {
  const whole = frameResource({ ...item.provenance, truncated: false }, '');
  const cut = frameResource({ ...item.provenance, truncated: true }, '');
  const original = item.bodyTokens.length;
  // The marker's numbers are at most as long as the original count: an upper bound.
  const marker = truncationMarker({ ...item.provenance, shownTokens: original, originalTokens: original });
  const [wholeTokens, cutTokens, markerTokens] = await Promise.all([
    tokenizer.count(whole),
    tokenizer.count(cut),
    tokenizer.count(marker),
  ]);
  return { fullTokens: wholeTokens + original, truncatedOverheadTokens: cutTokens + markerTokens };
}

function renderAttachment(
  item: ComposableAttachment,
  decision: BudgetDecision,
  tokenizer: Tokenizer,
): (ContextBlock & { kind: 'resource' }) | undefined {
  if (decision.fate === 'omitted') return undefined;
  if (decision.fate === 'whole') {
    const provenance = { ...item.provenance, truncated: false };
    return { kind: 'resource', text: frameResource(provenance, item.body), provenance };
  }
  const shown = tokenizer.decode(item.bodyTokens.subarray(0, Math.max(0, decision.contentTokens)));
  const marker = truncationMarker({
    ...item.provenance,
    shownTokens: decision.contentTokens,
    originalTokens: item.bodyTokens.length,
  });
  const provenance = { ...item.provenance, truncated: true };
  return { kind: 'resource', text: frameResource(provenance, shown + marker), provenance };
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

function omitAll(items: readonly ComposableAttachment[]): ComposedContext {
  return {
    blocks: [],
    usedTokens: 0,
    attachments: items.map(() => ({
      decision: { fate: 'omitted', reason: 'the rendered context could not be fitted to the budget' },
      tokens: 0,
    })),
  };
}
