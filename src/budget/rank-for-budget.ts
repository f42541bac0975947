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
export function rankForBudget<Item>(items: readonly Item[], rankOf: (item: Item) => BudgetRank): Item[] {
  // Each rank is taken once, not once per comparison (Array#sort is stable).
  const ranked = items.map((item) => ({ item, rank: rankOf(item) }));
  ranked.sort(({ rank: a }, { rank: b }) => {
    return (
      scopeOrder[a.scope] - scopeOrder[b.scope] ||
      b.priority - a.priority ||
      (b.annotationPriority ?? 0.5) - (a.annotationPriority ?? 0.5)
    );
  });
  return ranked.map(({ item }) => item);
}
