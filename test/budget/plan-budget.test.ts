import { describe, expect, it } from 'vitest';
import { planBudget } from '../../src/budget/plan-budget.js';

const item = (fullTokens: number, capTokens?: number) => ({
  fullTokens,
  truncatedOverheadTokens: 20,
  ...(capTokens !== undefined && { capTokens }),
});

describe('planBudget', () => {
  it('gives everything whole when it all fits', () => {
    const decisions = planBudget([item(100), item(200)], {
      availableTokens: 1000,
      minTokens: 10,
      strategy: 'fair',
    });
    expect(decisions).toEqual([
      { fate: 'whole', tokens: 100 },
      { fate: 'whole', tokens: 200 },
    ]);
  });

  it('fair: a small attachment keeps all it needs and the large ones share the rest equally', () => {
    const decisions = planBudget([item(1000), item(50), item(1000)], {
      availableTokens: 650,
      minTokens: 10,
      strategy: 'fair',
    });
    expect(decisions[1]).toEqual({ fate: 'whole', tokens: 50 });
    expect(decisions[0]).toEqual({ fate: 'truncated', tokens: 300, contentTokens: 280 });
    expect(decisions[2]).toEqual({ fate: 'truncated', tokens: 300, contentTokens: 280 });
  });

  it('fair: when minimums do not fit, the lowest-ranked are omitted first', () => {
    const decisions = planBudget([item(1000), item(1000), item(1000)], {
      availableTokens: 130,
      minTokens: 40,
      strategy: 'fair',
    });
    expect(decisions.map((decision) => decision.fate)).toEqual(['truncated', 'truncated', 'omitted']);
  });

  it('priority: the first takes what it needs and later ones get what is left', () => {
    const decisions = planBudget([item(500), item(500), item(500)], {
      availableTokens: 800,
      minTokens: 10,
      strategy: 'priority',
    });
    expect(decisions).toEqual([
      { fate: 'whole', tokens: 500 },
      { fate: 'truncated', tokens: 300, contentTokens: 280 },
      { fate: 'omitted', reason: '0 tokens were left, it needs at least 30' },
    ]);
  });

  it('respects an attachment cap and omits one whose cap is below its smallest useful cut', () => {
    const decisions = planBudget([item(1000, 200), item(1000, 25)], {
      availableTokens: 5000,
      minTokens: 10,
      strategy: 'fair',
    });
    expect(decisions[0]).toEqual({ fate: 'truncated', tokens: 200, contentTokens: 180 });
    expect(decisions[1]?.fate).toBe('omitted');
  });

  it('never hands out more than is available', () => {
    for (let available = 0; available < 400; available += 7) {
      for (const strategy of ['fair', 'priority'] as const) {
        const decisions = planBudget([item(90), item(300), item(45), item(1000, 120)], {
          availableTokens: available,
          minTokens: 16,
          strategy,
        });
        const used = decisions.reduce(
          (sum, decision) => sum + (decision.fate === 'omitted' ? 0 : decision.tokens),
          0,
        );
        expect(used).toBeLessThanOrEqual(available);
      }
    }
  });
});

describe('planBudget near fits', () => {
  it('fair: an attachment a few tokens short of whole is given them by the largest cut one instead of paying a marker', () => {
    const decisions = planBudget([item(1000), item(216), item(1000)], {
      availableTokens: 645,
      minTokens: 10,
      strategy: 'fair',
    });
    expect(decisions[1]).toEqual({ fate: 'whole', tokens: 216 });
    const used = decisions.reduce(
      (sum, decision) => sum + (decision.fate === 'omitted' ? 0 : decision.tokens),
      0,
    );
    expect(used).toBe(645);
  });
});

describe('planBudget with per-scope reservations', () => {
  const scoped = (fullTokens: number, scope: 'message' | 'conversation' | 'pipeline') => ({
    fullTokens,
    truncatedOverheadTokens: 20,
    scope,
  });

  it('a reserved scope is planned within its reservation first, then shares the rest', () => {
    const items = [scoped(2000, 'message'), scoped(2000, 'pipeline'), scoped(2000, 'pipeline')];
    const plain = planBudget(items, { availableTokens: 900, minTokens: 10, strategy: 'fair' });
    expect(plain.map((decision) => (decision.fate === 'omitted' ? 0 : decision.tokens))).toEqual([
      300, 300, 300,
    ]);
    const reserved = planBudget(items, {
      availableTokens: 900,
      minTokens: 10,
      strategy: 'fair',
      reservations: { message: 500 },
    });
    const tokens = reserved.map((decision) => (decision.fate === 'omitted' ? 0 : decision.tokens));
    expect(tokens[0]).toBeGreaterThanOrEqual(500);
    expect(tokens.reduce((sum, value) => sum + value, 0)).toBe(900);
    expect(tokens[1]).toBe(tokens[2]);
  });

  it('what a reserved scope does not need goes to the others', () => {
    const reserved = planBudget([scoped(100, 'message'), scoped(2000, 'pipeline')], {
      availableTokens: 1000,
      minTokens: 10,
      strategy: 'fair',
      reservations: { message: 600 },
    });
    expect(reserved[0]).toEqual({ fate: 'whole', tokens: 100 });
    expect(reserved[1]).toEqual({ fate: 'truncated', tokens: 900, contentTokens: 880 });
  });

  it('never hands out more than is available, whatever the reservations', () => {
    for (let available = 0; available < 600; available += 13) {
      for (const strategy of ['fair', 'priority'] as const) {
        const decisions = planBudget(
          [
            scoped(300, 'message'),
            scoped(500, 'conversation'),
            scoped(90, 'pipeline'),
            scoped(700, 'pipeline'),
          ],
          {
            availableTokens: available,
            minTokens: 16,
            strategy,
            reservations: { conversation: 250, pipeline: 400 },
          },
        );
        const used = decisions.reduce(
          (sum, decision) => sum + (decision.fate === 'omitted' ? 0 : decision.tokens),
          0,
        );
        expect(used).toBeLessThanOrEqual(available);
      }
    }
  });
});
