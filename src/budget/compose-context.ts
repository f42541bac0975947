import type { ContextError } from '../errors.js';
import { type AssembledBody, assembleBody } from '../render/assemble-body.js';
import { contextPreamble } from '../render/frame-resource.js';
import type { ContextBlock, OmittedContent } from '../types.js';
import { budgetFailure } from './budget-failure.js';
import type { ComposableAttachment, ComposeOptions } from './composable-attachment.js';
import { fitRendering } from './fit-rendering.js';
import { type BudgetDecision, decisionFor } from './plan-budget.js';
import { type PlannedAttachment, planShares } from './plan-shares.js';
import { type FitContext, type ResourceBlock, renderCounted } from './render-counted.js';
import type { Tokenizer } from './tokenizer.js';
import { type CompositionInputs, sameInputs, turnKeyOf } from './turn-key-of.js';

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
  /** Set when assembling, counting or rendering it threw: it is left out, and the turn goes on. */
  readonly failure?: ContextError;
}

export interface ComposedContext {
  readonly blocks: ContextBlock[];
  readonly usedTokens: number;
  /** One per attachment, in the order given. */
  readonly attachments: ComposedAttachment[];
}

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
  if (items.length === 0) return { blocks: [], usedTokens: 0, attachments: [] };
  // A warm turn: every attachment's content, frame facts and cap, and every option, as on a
  // turn already composed: that composition again, without planning, rendering or counting.
  const memo = options.derived;
  const turnKey = memo && turnKeyOf(items, tokenizer, options);
  const known = turnKey === undefined ? undefined : memo?.composition<KeptComposition>(turnKey);
  // The blocks array is the caller's to change; the blocks themselves are shared, as renderings are.
  if (known && sameInputs(known, items, options.renderOrder))
    return { blocks: [...known.blocks], usedTokens: known.usedTokens, attachments: known.attachments };
  const composed = await composeAnew(items, tokenizer, options);
  // A failure is not kept, nor a composition the stop may have cut short: the next turn tries again.
  const stopped = options.stopAt !== undefined && performance.now() >= options.stopAt;
  if (turnKey !== undefined && !stopped && composed.attachments.every((attachment) => !attachment.failure)) {
    // One literal, every field in one order, arrays copied with their elements kind (slice, not
    // spread): every kept composition has one shape, and sameInputs stays optimized for it (a
    // spread copy of `composed` gave each provider's kept compositions a map of their own).
    memo?.keepComposition(turnKey, {
      blocks: composed.blocks.slice(),
      usedTokens: composed.usedTokens,
      attachments: composed.attachments,
      items: items.slice(),
      renderOrder: options.renderOrder.slice(),
    });
  }
  return composed;
}

async function composeAnew(
  items: readonly ComposableAttachment[],
  tokenizer: Tokenizer,
  options: ComposeOptions,
): Promise<ComposedContext> {
  const maxTokens = Math.floor(options.maxTokens * (1 - (options.safetyMargin ?? 0)));
  const preambleTokens = await tokenizer.count(contextPreamble);
  const available = maxTokens - preambleTokens;
  // Each attachment's own throw (assembling, counting, rendering) is its failure, by its index.
  const failures = new Map<number, ContextError>();
  const bodies = items.map((item, index) => {
    try {
      return { item, body: assembleBody(item.sections, options.model) };
    } catch (error) {
      failures.set(index, budgetFailure(error, item));
      return { item, body: emptyBody };
    }
  });
  const planned = await planShares(bodies, tokenizer, options, available, failures);
  const context: FitContext = {
    tokenizer,
    options,
    maxTokens,
    preambleTokens,
    renderedThisTurn: new Map(),
    indexedThisTurn: new Map(),
  };

  const fitted = await fitRendering(
    () => evaluate(planned, context, failures),
    (attempt) => {
      for (const over of attempt.rendered.filter(({ excess }) => excess > 0)) {
        over.attachment.decision = shrink(over.attachment, over.excess, options.minTokens);
      }
      if (attempt.excess > 0 && attempt.rendered.every(({ excess }) => excess <= 0)) {
        const target = largest(planned);
        if (target) target.decision = shrink(target, attempt.excess, options.minTokens);
      }
      return true;
    },
  );
  if (!fitted) return omitAll(planned, failures);
  const final = await grow(fitted, planned, context, failures);
  return {
    blocks: final.blocks,
    usedTokens: final.usedTokens,
    attachments: final.rendered.map(({ attachment, tokens, decision }, index) => {
      const failure = failures.get(index);
      return {
        decision,
        tokens,
        originalTokens: attachment.measure.originalTokens,
        originalTokensEstimated: attachment.measure.estimated,
        omittedContents: attachment.body.omittedContents,
        injectable: attachment.body.injectable,
        ...(failure && { failure }),
      };
    }),
  };
}

// --- Internal helpers ---

/** A composition kept for warm turns, with the attachments and render order it was made of. */
interface KeptComposition extends ComposedContext, CompositionInputs {}

/** A planned attachment whose decision the fit loop may still change. */
type Fitting = { -readonly [Key in keyof PlannedAttachment]: PlannedAttachment[Key] };

/** One attachment as rendered in an attempt: its block, its count, and how far over its cap. */
interface RenderedAttachment {
  readonly attachment: Fitting;
  /** The decision this rendering was made with. */
  readonly decision: BudgetDecision;
  readonly block: ResourceBlock | undefined;
  readonly tokens: number;
  /** Tokens over the attachment's own cap (≤ 0 when within it). */
  readonly excess: number;
}

interface Attempt {
  readonly fits: boolean;
  readonly blocks: ContextBlock[];
  readonly usedTokens: number;
  /** Tokens over the turn's budget (≤ 0 when within it). */
  readonly excess: number;
  readonly rendered: readonly RenderedAttachment[];
}

/**
 * Renders every attachment with its current decision and counts what that costs. One whose
 * rendering throws is entered in `failures` and omitted from then on.
 */
async function evaluate(
  attachments: readonly Fitting[],
  context: FitContext,
  failures: Map<number, ContextError>,
): Promise<Attempt> {
  const rendered = await Promise.all(
    attachments.map(async (attachment, index): Promise<RenderedAttachment> => {
      let decision = attachment.decision;
      let counted: Awaited<ReturnType<typeof renderCounted>>;
      try {
        counted = await renderCounted(attachment, decision, context);
      } catch (error) {
        failures.set(index, budgetFailure(error, attachment.item));
        attachment.decision = decision = failedInRendering;
        counted = { block: undefined, tokens: 0 };
      }
      const { block, tokens } = counted;
      const excess = tokens - (attachment.item.capTokens ?? Number.POSITIVE_INFINITY);
      return { attachment, decision, block, tokens, excess };
    }),
  );
  const blocks = assemble(rendered, context.options.renderOrder);
  const usedTokens = blocks.length === 0 ? 0 : await countRendering(blocks, rendered, context);
  const excess = usedTokens - context.maxTokens;
  return {
    fits: excess <= 0 && rendered.every((attachment) => attachment.excess <= 0),
    blocks,
    usedTokens,
    excess,
    rendered,
  };
}

/**
 * Cuts rarely land on their exact share (a dropped partial character, a line end, a marker
 * shorter than its worst case): hand what is left to cut attachments that can use it, keeping
 * the result only when it still fits.
 */
async function grow(
  fitted: Attempt,
  attachments: readonly Fitting[],
  context: FitContext,
  failures: Map<number, ContextError>,
): Promise<Attempt> {
  let best = fitted;
  const { stopAt } = context.options;
  for (let round = 0; round < maxGrowRounds; round++) {
    const slack = context.maxTokens - best.usedTokens;
    // Growing is a nicety, not started past the stop.
    if (slack <= 0 || (stopAt !== undefined && performance.now() >= stopAt)) break;
    const kept = attachments.map((attachment) => attachment.decision);
    let left = slack;
    for (const { attachment, decision, tokens } of best.rendered) {
      if (decision.fate !== 'truncated' || left <= 0) continue;
      const cap = Math.min(attachment.item.capTokens ?? Number.POSITIVE_INFINITY, attachment.cost.fullTokens);
      const extra = Math.min(left, cap - tokens);
      // Grown from what it rendered, not from its share: the part of its share a cut left unused
      // (a chunk or line that did not fit) is already in the slack. Grown from the share, a cut
      // took that part twice, the round came out over and was thrown away, slack and all: in
      // hostLike's steady turns, 3 first rounds in 10 under `relevant` (about 1,900 tokens each;
      // 2 turns in 3 lost some round) and 4 to 5 in 10 under `head` (about 290). A share no
      // larger than the one it had cuts no more.
      const grown = tokens + extra;
      if (extra <= 0 || grown <= decision.tokens) continue;
      // Decided as the plan decides (a share that covers the whole is the whole: a cut given room
      // for all of its body would show it all under a frame that says truncated, with no marker),
      // for a body counted to its end and allowed whole by its cap. An estimated whole cost is
      // only a guess from below: that body stays cut, and marked.
      attachment.decision =
        !attachment.measure.estimated && attachment.cost.fullTokens <= cap
          ? decisionFor(attachment.cost, grown)
          : {
              fate: 'truncated',
              tokens: grown,
              contentTokens: decision.contentTokens + grown - decision.tokens,
            };
      left -= extra;
    }
    if (left === slack) break;
    const attempt = await evaluate(attachments, context, failures);
    if (!attempt.fits || attempt.usedTokens <= best.usedTokens) {
      for (const [index, attachment] of attachments.entries())
        attachment.decision = kept[index] ?? attachment.decision;
      break;
    }
    best = attempt;
  }
  return best;
}

/**
 * The rendering's count. Every block ends with ">\n\n" and the next starts with "<" (the preamble
 * ends ".\n\n"): tiktoken's pre-tokenizer always splits there, so no token spans a join and a
 * piecewise tokenizer's count is the sum of the blocks' (the property test checks this against a
 * full count). Any other tokenizer counts the rendering whole, the leading section in its place,
 * and that section's own count is taken off again (`maxTokens` was reduced by it).
 */
async function countRendering(
  blocks: readonly ContextBlock[],
  rendered: readonly RenderedAttachment[],
  { tokenizer, options, preambleTokens }: FitContext,
): Promise<number> {
  if (tokenizer.piecewise) return preambleTokens + rendered.reduce((sum, { tokens }) => sum + tokens, 0);
  const [preamble, ...rest] = blocks.map((block) => block.text);
  const leading = options.leading;
  const whole = await tokenizer.count([preamble, leading?.text ?? '', ...rest].join(''));
  return whole - (leading?.tokens ?? 0);
}

function assemble(rendered: readonly RenderedAttachment[], renderOrder: readonly number[]): ContextBlock[] {
  const blocks = renderOrder.map((index) => rendered[index]?.block).filter((block) => block !== undefined);
  return blocks.length === 0 ? [] : [{ kind: 'preamble', text: contextPreamble }, ...blocks];
}

/** The attachment holding the most tokens, if any is not omitted. */
function largest(attachments: readonly Fitting[]): Fitting | undefined {
  let found: Fitting | undefined;
  let most = -1;
  for (const attachment of attachments) {
    const { decision } = attachment;
    if (decision.fate !== 'omitted' && decision.tokens > most) {
      found = attachment;
      most = decision.tokens;
    }
  }
  return found;
}

/** Takes `excess` tokens from one attachment; omits it if that leaves less than a useful cut. */
function shrink(attachment: PlannedAttachment, excess: number, minTokens: number): BudgetDecision {
  const { decision, cost } = attachment;
  if (decision.fate === 'omitted') return decision;
  const tokens = decision.tokens - excess;
  const contentTokens = tokens - cost.truncatedOverheadTokens;
  return contentTokens >= minTokens
    ? { fate: 'truncated', tokens, contentTokens }
    : { fate: 'omitted', reason: 'the exact count of the rendered context left it too little room' };
}

function omitAll(
  attachments: readonly PlannedAttachment[],
  failures: ReadonlyMap<number, ContextError>,
): ComposedContext {
  return {
    blocks: [],
    usedTokens: 0,
    attachments: attachments.map(({ measure, body }, index) => {
      const failure = failures.get(index);
      return {
        decision: failure
          ? failedInRendering
          : { fate: 'omitted', reason: 'the rendered context could not be fitted to the budget' },
        tokens: 0,
        originalTokens: measure.originalTokens,
        originalTokensEstimated: measure.estimated,
        omittedContents: body.omittedContents,
        injectable: body.injectable,
        ...(failure && { failure }),
      };
    }),
  };
}

const failedInRendering: BudgetDecision = { fate: 'omitted', reason: 'its content could not be rendered' };

// What an attachment whose body could not be assembled is planned with.
const emptyBody: AssembledBody = {
  body: '',
  pinnedChars: 0,
  parts: [],
  omittedContents: [],
  injectable: false,
};
