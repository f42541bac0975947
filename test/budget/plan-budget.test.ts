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

  it('fair: a lower-ranked attachment whose minimum fits is kept when a higher-ranked one cannot have its own', () => {
    // The long one's smallest cut is 100 + 10 = 110 of 60; the short one needs 30 (goes in whole at 50).
    const long = { fullTokens: 1000, truncatedOverheadTokens: 100 };
    const options = { availableTokens: 60, minTokens: 10, strategy: 'fair' } as const;
    const longOmitted = (left: number) => ({
      fate: 'omitted',
      reason: `${left} tokens were left after the minimums of those ranked above it, it needs at least 110`,
    });
    expect(planBudget([long, item(50)], options)).toEqual([longOmitted(60), { fate: 'whole', tokens: 50 }]);
    expect(planBudget([item(50), long], options)).toEqual([{ fate: 'whole', tokens: 50 }, longOmitted(30)]);
  });

  it('fair: dropped attachments are taken back best-ranked first while their minimums fit what is left', () => {
    const fair = (availableTokens: number) => ({ availableTokens, minTokens: 10, strategy: 'fair' }) as const;
    // Minimums 110, 30, 30 in 40: all three are dropped; taken back in rank order, the first does
    // not fit the 40, the second does, and the third does not fit the 10 it leaves.
    const long = { fullTokens: 1000, truncatedOverheadTokens: 100 };
    expect(planBudget([long, item(1000), item(1000)], fair(40))).toEqual([
      {
        fate: 'omitted',
        reason: '40 tokens were left after the minimums of those ranked above it, it needs at least 110',
      },
      { fate: 'truncated', tokens: 40, contentTokens: 20 },
      {
        fate: 'omitted',
        reason: '10 tokens were left after the minimums of those ranked above it, it needs at least 30',
      },
    ]);
    // Minimums 30, 60, 30, 10 in 100: dropping stops once the first two fit (90); of the two
    // dropped, the third's 30 does not fit the 10 left, the fourth's 10 does.
    const wide = { fullTokens: 1000, truncatedOverheadTokens: 50 };
    expect(planBudget([item(1000), wide, item(1000), item(10)], fair(100))).toEqual([
      { fate: 'truncated', tokens: 30, contentTokens: 10 },
      { fate: 'truncated', tokens: 60, contentTokens: 10 },
      {
        fate: 'omitted',
        reason: '10 tokens were left after the minimums of those ranked above it, it needs at least 30',
      },
      { fate: 'whole', tokens: 10 },
    ]);
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

  it('fair: minimums that add up to exactly the budget all fit; one token less and the last is omitted', () => {
    const options = { minTokens: 40, strategy: 'fair' } as const;
    const cut = (tokens: number) => ({ fate: 'truncated', tokens, contentTokens: tokens - 20 });
    expect(planBudget([item(1000), item(1000), item(1000)], { ...options, availableTokens: 180 })).toEqual([
      cut(60),
      cut(60),
      cut(60),
    ]);
    expect(planBudget([item(1000), item(1000), item(1000)], { ...options, availableTokens: 179 })).toEqual([
      cut(90),
      cut(89),
      {
        fate: 'omitted',
        reason: '59 tokens were left after the minimums of those ranked above it, it needs at least 60',
      },
    ]);
  });

  it('fair: an attachment whose cap is below its smallest cut takes no part in the level nor in the spare tokens', () => {
    const tooSmall = {
      fate: 'omitted',
      reason: 'its maxTokens (25) is below the smallest useful cut with frame and marker',
    };
    const options = { minTokens: 10, strategy: 'fair' } as const;
    expect(
      planBudget([item(1000), item(1000), item(1000, 25)], { ...options, availableTokens: 500 }),
    ).toEqual([
      { fate: 'truncated', tokens: 250, contentTokens: 230 },
      { fate: 'truncated', tokens: 250, contentTokens: 230 },
      tooSmall,
    ]);
    expect(
      planBudget([item(1000, 25), item(1000), item(1000)], { ...options, availableTokens: 501 }),
    ).toEqual([
      tooSmall,
      { fate: 'truncated', tokens: 251, contentTokens: 231 },
      { fate: 'truncated', tokens: 250, contentTokens: 230 },
    ]);
  });

  it('priority: an attachment whose cap is below its smallest cut is omitted and takes nothing', () => {
    expect(
      planBudget([item(1000, 25), item(1000)], { availableTokens: 500, minTokens: 10, strategy: 'priority' }),
    ).toEqual([
      {
        fate: 'omitted',
        reason: 'its maxTokens (25) is below the smallest useful cut with frame and marker',
      },
      { fate: 'truncated', tokens: 500, contentTokens: 480 },
    ]);
  });

  it('priority: exactly the minimum left is enough for a cut', () => {
    expect(
      planBudget([item(500), item(500)], { availableTokens: 530, minTokens: 10, strategy: 'priority' }),
    ).toEqual([
      { fate: 'whole', tokens: 500 },
      { fate: 'truncated', tokens: 30, contentTokens: 10 },
    ]);
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
  const fair = (availableTokens: number, minTokens = 10) =>
    ({ availableTokens, minTokens, strategy: 'fair' }) as const;
  const truncated = (tokens: number) => ({ fate: 'truncated', tokens, contentTokens: tokens - 20 });

  it('fair: an attachment a few tokens short of whole is given them by the largest cut one instead of paying a marker', () => {
    // Level 215 for all three; the first of the two largest cut shares gives the 1 token.
    expect(planBudget([item(1000), item(216), item(1000)], fair(645))).toEqual([
      truncated(214),
      { fate: 'whole', tokens: 216 },
      truncated(215),
    ]);
  });

  it('a shortfall as large as the cost of a cut (20) is given; one token more is not', () => {
    expect(planBudget([item(1000), item(300), item(1000)], fair(840))).toEqual([
      truncated(260),
      { fate: 'whole', tokens: 300 },
      truncated(280),
    ]);
    expect(planBudget([item(1000), item(300), item(1000)], fair(837))).toEqual([
      truncated(279),
      truncated(279),
      truncated(279),
    ]);
  });

  it('an attachment its own cap keeps short of whole is not promoted', () => {
    expect(planBudget([item(1000), item(216, 215), item(1000)], fair(645))).toEqual([
      truncated(215),
      truncated(215),
      truncated(215),
    ]);
  });

  it('the donor is a cut attachment, never one that is whole, even with the larger share', () => {
    expect(planBudget([item(1000, 100), item(120), item(216)], fair(435))).toEqual([
      truncated(99),
      { fate: 'whole', tokens: 120 },
      { fate: 'whole', tokens: 216 },
    ]);
  });

  it('the donor keeps at least its own minimum share', () => {
    // Minimum 20 + 19 = 39: the donor can give 1 of its 40.
    expect(planBudget([item(1000, 40), item(216)], fair(255, 19))).toEqual([
      truncated(39),
      { fate: 'whole', tokens: 216 },
    ]);
    // Minimum 40: it cannot.
    expect(planBudget([item(1000, 40), item(216)], fair(255, 20))).toEqual([truncated(40), truncated(215)]);
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
    // 500 held for the message; the 400 left shared by all three, the message lacking 1,500
    // with its frame and marker paid: level 133, the spare token to the first.
    expect(reserved).toEqual([
      { fate: 'truncated', tokens: 634, contentTokens: 614 },
      { fate: 'truncated', tokens: 133, contentTokens: 113 },
      { fate: 'truncated', tokens: 133, contentTokens: 113 },
    ]);
  });

  it('a reserved attachment’s cap counts what it already holds', () => {
    // 500 held of the cap of 700: the shared round can add 200, not more.
    const reserved = planBudget([{ ...scoped(2000, 'message'), capTokens: 700 }, scoped(2000, 'pipeline')], {
      availableTokens: 1000,
      minTokens: 10,
      strategy: 'fair',
      reservations: { message: 500 },
    });
    expect(reserved).toEqual([
      { fate: 'truncated', tokens: 700, contentTokens: 680 },
      { fate: 'truncated', tokens: 300, contentTokens: 280 },
    ]);
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
