import { mapItems } from '../map-items.js';
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
  const ranks = mapItems(items, rankOf);
  // Resolution already orders by scope and priority: only listed priorities can reorder, so the
  // usual turn finds its items in rank order and gets them back as they are.
  if (inRankOrder(ranks)) return items;
  // Positions are sorted, not pairs made per item (every turn ranks every attachment), and equal
  // ranks keep their positions' order.
  const order = mapItems(items, positionOf);
  order.sort((a, b) => compareRanks(ranks[a] as BudgetRank, ranks[b] as BudgetRank) || a - b);
  return mapItems(order, (position) => items[position] as Item);
}

// --- Internal helpers ---

function inRankOrder(ranks: readonly BudgetRank[]): boolean {
  for (let index = 1; index < ranks.length; index++) {
    if (compareRanks(ranks[index - 1] as BudgetRank, ranks[index] as BudgetRank) > 0) return false;
  }
  return true;
}

function positionOf(_item: unknown, position: number): number {
  return position;
}

function compareRanks(a: BudgetRank, b: BudgetRank): number {
  return (
    scopeOrder[a.scope] - scopeOrder[b.scope] ||
    b.priority - a.priority ||
    (b.annotationPriority ?? 0.5) - (a.annotationPriority ?? 0.5)
  );
}
