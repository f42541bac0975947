import { describe, expect, it } from 'vitest';
import { type BudgetRank, rankForBudget } from '../../src/budget/rank-for-budget.js';

describe('rankForBudget', () => {
  const rank = (items: readonly (BudgetRank & { name: string })[]) =>
    rankForBudget(items, (item) => item).map(({ name }) => name);

  it('narrowest scope first: message, conversation, pipeline', () => {
    expect(
      rank([
        { name: 'p', scope: 'pipeline', priority: 9 },
        { name: 'c', scope: 'conversation', priority: 0 },
        { name: 'm', scope: 'message', priority: 0 },
      ]),
    ).toEqual(['m', 'c', 'p']);
  });

  it('within a scope, the higher own priority first, then the higher listed priority (absent counts as 0.5)', () => {
    expect(
      rank([
        { name: 'low', scope: 'pipeline', priority: 1 },
        { name: 'high', scope: 'pipeline', priority: 2 },
        { name: 'listed 0.4', scope: 'pipeline', priority: 1, annotationPriority: 0.4 },
        { name: 'listed 0.6', scope: 'pipeline', priority: 1, annotationPriority: 0.6 },
      ]),
    ).toEqual(['high', 'listed 0.6', 'low', 'listed 0.4']);
  });

  it('equal ranks keep the order given; the rank of each is taken once', () => {
    let taken = 0;
    const items = ['a', 'b', 'c', 'd'];
    const ranked = rankForBudget(items, () => {
      taken++;
      return { scope: 'pipeline', priority: 0 };
    });
    expect(ranked).toEqual(items);
    expect(taken).toBe(4);
  });

  it('a list that must be sorted keeps equal ranks in the order given', () => {
    expect(
      rank([
        { name: 'a', scope: 'pipeline', priority: 0 },
        { name: 'b', scope: 'pipeline', priority: 0 },
        { name: 'm', scope: 'message', priority: 0 },
        { name: 'c', scope: 'pipeline', priority: 0 },
        { name: 'd', scope: 'pipeline', priority: 0 },
      ]),
    ).toEqual(['m', 'a', 'b', 'c', 'd']);
  });

  it('items already in rank order (equal ranks included) come back as the same list, with nothing sorted', () => {
    const ordered: BudgetRank[] = [
      { scope: 'message', priority: 0 },
      { scope: 'pipeline', priority: 2 },
      { scope: 'pipeline', priority: 2 },
      { scope: 'pipeline', priority: 1, annotationPriority: 0.9 },
      { scope: 'pipeline', priority: 1 },
    ];
    expect(rankForBudget(ordered, (item) => item)).toBe(ordered);
    const swapped = [ordered[1], ordered[0]] as BudgetRank[];
    const ranked = rankForBudget(swapped, (item) => item);
    expect(ranked).not.toBe(swapped);
    expect(ranked).toEqual([ordered[0], ordered[1]]);
  });
});
