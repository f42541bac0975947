import type { ScopeKind } from '../types.js';

/** What an attachment's budget rank is made of. */
export interface BudgetRank {
  readonly scope: ScopeKind;
  /** The attachment's own priority (highest first). */
  readonly priority: number;
  /** The server's listed `annotations.priority` (0–1), where it gives one. */
  readonly annotationPriority?: number;
}

const scopeOrder = { message: 0, conversation: 1, pipeline: 2 } as const;

/**
 * Budget rank: the narrowest scope first, then the attachment's own priority, then the server's
 * listed `annotations.priority` (absent counts as neutral 0.5), known only after listing.
 * Stable: equal attachments keep the order they were resolved in.
 */
export function rankForBudget<Item>(
  items: readonly Item[],
  rankOf: (item: Item) => BudgetRank,
): readonly Item[] {
  // Each rank is taken once, not once per comparison.
  const ranked = items.map((item) => ({ item, rank: rankOf(item) }));
  // Resolution already orders by scope and priority: only listed priorities can reorder, so the
  // usual turn finds its items in rank order and gets them back as they are.
  if (inRankOrder(ranked)) return items;
  // Array.prototype.sort is stable: equal ranks keep the order they were resolved in.
  return ranked.sort((a, b) => compareRanks(a.rank, b.rank)).map(({ item }) => item);
}

// --- Internal helpers ---

function inRankOrder(ranked: readonly { readonly rank: BudgetRank }[]): boolean {
  let previous: BudgetRank | undefined;
  for (const { rank } of ranked) {
    if (previous && compareRanks(previous, rank) > 0) return false;
    previous = rank;
  }
  return true;
}

function compareRanks(a: BudgetRank, b: BudgetRank): number {
  return (
    scopeOrder[a.scope] - scopeOrder[b.scope] ||
    b.priority - a.priority ||
    (b.annotationPriority ?? 0.5) - (a.annotationPriority ?? 0.5)
  );
}
