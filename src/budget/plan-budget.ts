import type { ScopeKind } from '../types.js';

/** One attachment as the planner sees it: token costs only, already in rank order. */
export interface BudgetItem {
  /** Tokens of the whole framed attachment, nothing cut. */
  readonly fullTokens: number;
  /** Tokens of the frame plus a truncation marker: what a cut attachment costs before content. */
  readonly truncatedOverheadTokens: number;
  /** The most tokens this attachment may take (its own `maxTokens`), if any. */
  readonly capTokens?: number;
  /** The scope it came from, for per-scope reservations. */
  readonly scope?: ScopeKind;
}

export type BudgetDecision =
  | { readonly fate: 'whole'; readonly tokens: number }
  | { readonly fate: 'truncated'; readonly tokens: number; readonly contentTokens: number }
  | { readonly fate: 'omitted'; readonly reason: string };

export interface BudgetPlanOptions {
  /** Tokens available to the attachments (the turn's budget less the preamble). */
  readonly availableTokens: number;
  /** Content tokens below which a cut attachment is omitted instead of injected as a stub. */
  readonly minTokens: number;
  readonly strategy: 'fair' | 'priority';
  /**
   * Tokens held for a scope's attachments: they are planned within it first (narrowest scope
   * first), then everything left is shared across all attachments as usual.
   */
  readonly reservations?: Partial<Record<ScopeKind, number>>;
}

/**
 * Decides how many tokens each attachment gets. Items come in rank order (narrowest scope,
 * then priority, first). `fair` is max-min water-filling: everyone gets the same level,
 * clamped to what they need; when even the minimums do not fit, the lowest-ranked are
 * omitted first, and any of them whose minimum fits beside those ranked above it is kept after
 * all. `priority` is greedy: each in turn takes what it needs of what is left.
 */
export function planBudget(items: readonly BudgetItem[], options: BudgetPlanOptions): BudgetDecision[] {
  const reserved = scopeOrder.filter((scope) => (options.reservations?.[scope] ?? 0) > 0);
  if (reserved.length === 0) return planShared(items, options);
  return planReserved(items, options, reserved);
}

/**
 * The fewest tokens a cut can take and still be worth injecting: its overhead (frame and
 * marker) plus `minTokens` of content. Pin-time validation (`smallestUsefulCut`) uses it too.
 */
export function smallestCutTokens(overheadTokens: number, minTokens: number): number {
  return overheadTokens + minTokens;
}

// --- Internal helpers ---

const scopeOrder: readonly ScopeKind[] = ['message', 'conversation', 'pipeline'];

/**
 * Reservations first: each reserved scope's attachments are planned within its reservation.
 * Then the rest of the budget is shared over everything, an attachment that already holds a
 * share competing only for what it still lacks (its frame and marker are paid for).
 */
function planReserved(
  items: readonly BudgetItem[],
  options: BudgetPlanOptions,
  reserved: readonly ScopeKind[],
): BudgetDecision[] {
  const held: (number | undefined)[] = items.map(() => undefined);
  let left = options.availableTokens;
  for (const scope of reserved) {
    const indices = items.flatMap((item, index) => (item.scope === scope ? [index] : []));
    const share = Math.min(left, options.reservations?.[scope] ?? 0);
    const decisions = planShared(
      indices.map((index) => items[index] as BudgetItem),
      { ...options, availableTokens: share },
    );
    for (const [position, decision] of decisions.entries()) {
      if (decision.fate === 'omitted') continue;
      held[indices[position] as number] = decision.tokens;
      left -= decision.tokens;
    }
  }
  const rest = items.map((item, index): BudgetItem => {
    const tokens = held[index];
    if (tokens === undefined) return item;
    // What it still lacks, with nothing more to pay for a frame or a marker.
    return {
      fullTokens: item.fullTokens - tokens,
      truncatedOverheadTokens: 0,
      ...(item.capTokens !== undefined && { capTokens: Math.max(0, item.capTokens - tokens) }),
    };
  });
  const more = planShared(rest, { ...options, availableTokens: left });
  return items.map((item, index) => {
    const tokens = held[index];
    const extra = more[index] as BudgetDecision;
    if (tokens === undefined) return extra;
    return decisionFor(item, tokens + (extra.fate === 'omitted' ? 0 : extra.tokens));
  });
}

function planShared(items: readonly BudgetItem[], options: BudgetPlanOptions): BudgetDecision[] {
  const bounds = items.map((item) => boundsOf(item, options.minTokens));
  return options.strategy === 'priority'
    ? planGreedy(items, bounds, options.availableTokens)
    : planFair(items, bounds, options.availableTokens);
}

interface Bounds {
  /** The fewest tokens worth injecting; undefined when the cap forbids even that. */
  readonly minimum?: number;
  readonly maximum: number;
}

function boundsOf(item: BudgetItem, minTokens: number): Bounds {
  const maximum = Math.min(item.fullTokens, item.capTokens ?? Number.POSITIVE_INFINITY);
  const smallestCut = smallestCutTokens(item.truncatedOverheadTokens, minTokens);
  // Something small enough to go in whole needs no minimum share.
  const minimum = Math.min(item.fullTokens, smallestCut);
  return minimum <= maximum ? { minimum, maximum } : { maximum };
}

/** What `tokens` buy of an item: the whole once they cover it, else a cut of what is left after its overhead. */
export function decisionFor(item: BudgetItem, tokens: number): BudgetDecision {
  if (tokens >= item.fullTokens) return { fate: 'whole', tokens: item.fullTokens };
  return { fate: 'truncated', tokens, contentTokens: tokens - item.truncatedOverheadTokens };
}

function tooSmallForCap(item: BudgetItem): BudgetDecision {
  return {
    fate: 'omitted',
    reason: `its maxTokens (${item.capTokens}) is below the smallest useful cut with frame and marker`,
  };
}

function planGreedy(
  items: readonly BudgetItem[],
  bounds: readonly Bounds[],
  available: number,
): BudgetDecision[] {
  let left = available;
  return items.map((item, index) => {
    const { minimum, maximum } = bounds[index] as Bounds;
    if (minimum === undefined) return tooSmallForCap(item);
    const tokens = Math.min(maximum, left);
    if (tokens < minimum) {
      return { fate: 'omitted', reason: `${left} tokens were left, it needs at least ${minimum}` };
    }
    left -= tokens;
    return decisionFor(item, tokens);
  });
}

function planFair(
  items: readonly BudgetItem[],
  bounds: readonly Bounds[],
  available: number,
): BudgetDecision[] {
  const included = bounds.map((bound) => bound.minimum !== undefined);
  let minimumSum = bounds.reduce(
    (sum, bound, index) => sum + (included[index] ? (bound.minimum ?? 0) : 0),
    0,
  );
  // Drop the lowest-ranked until every remaining minimum fits.
  for (let index = items.length - 1; index >= 0 && minimumSum > available; index--) {
    if (!included[index]) continue;
    included[index] = false;
    minimumSum -= bounds[index]?.minimum ?? 0;
  }
  // Then take back, best-ranked first, each dropped one whose minimum fits what the others'
  // minimums leave: a high-ranked one too large for the budget must not crowd out a smaller
  // one ranked below it. Everything included so far ranks above the one considered.
  const leftAbove = new Map<number, number>();
  for (const [index, bound] of bounds.entries()) {
    if (included[index] || bound.minimum === undefined) continue;
    leftAbove.set(index, available - minimumSum);
    if (bound.minimum > available - minimumSum) continue;
    included[index] = true;
    minimumSum += bound.minimum;
  }
  const level = waterLevel(bounds, included, available);
  const shares = bounds.map((bound, index) =>
    included[index] && bound.minimum !== undefined
      ? Math.min(bound.maximum, Math.max(bound.minimum, level))
      : 0,
  );
  // A whole level leaves up to one token per attachment over: hand it out in rank order.
  let left = available - shares.reduce((sum, share) => sum + share, 0);
  for (let index = 0; index < shares.length && left > 0; index++) {
    if (!included[index]) continue;
    const extra = Math.min(left, (bounds[index]?.maximum ?? 0) - (shares[index] ?? 0));
    shares[index] = (shares[index] ?? 0) + extra;
    left -= extra;
  }
  promoteNearFits(items, bounds, shares);
  return items.map((item, index) => {
    const { minimum } = bounds[index] as Bounds;
    if (minimum === undefined) return tooSmallForCap(item);
    if (!included[index]) {
      return {
        fate: 'omitted',
        reason: `${leftAbove.get(index)} tokens were left after the minimums of those ranked above it, it needs at least ${minimum}`,
      };
    }
    return decisionFor(item, shares[index] ?? 0);
  });
}

/**
 * An attachment a few tokens short of whole would pay a marker to lose a little content:
 * when its shortfall is smaller than the cost of cutting it, take the shortfall from the
 * attachment with the largest cut share instead (which stays above its own minimum).
 */
function promoteNearFits(items: readonly BudgetItem[], bounds: readonly Bounds[], shares: number[]): void {
  for (const [index, item] of items.entries()) {
    const share = shares[index] ?? 0;
    const shortfall = item.fullTokens - share;
    if (share === 0 || shortfall <= 0 || shortfall > item.truncatedOverheadTokens) continue;
    if ((bounds[index]?.maximum ?? 0) < item.fullTokens) continue;
    let donor = -1;
    for (const [other, otherShare] of shares.entries()) {
      const cut = otherShare < (items[other]?.fullTokens ?? 0);
      if (other !== index && cut && otherShare > (shares[donor] ?? 0)) donor = other;
    }
    const donorShare = shares[donor] ?? 0;
    if (donor < 0 || donorShare - shortfall < (bounds[donor]?.minimum ?? 0)) continue;
    shares[donor] = donorShare - shortfall;
    shares[index] = item.fullTokens;
  }
}

/** The highest whole level L at which Σ clamp(L, minimum, maximum) over the included items fits `available`. */
function waterLevel(bounds: readonly Bounds[], included: readonly boolean[], available: number): number {
  const active = bounds.filter((_, index) => included[index]) as Required<Bounds>[];
  const filled = (level: number) =>
    active.reduce((sum, bound) => sum + Math.min(bound.maximum, Math.max(bound.minimum, level)), 0);
  let low = 0;
  let high = Math.max(0, ...active.map((bound) => bound.maximum));
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (filled(middle) <= available) low = middle;
    else high = middle - 1;
  }
  return low;
}
