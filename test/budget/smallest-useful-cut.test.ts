import { afterAll, describe, expect, it } from 'vitest';
import { planBudget } from '../../src/budget/plan-budget.js';
import { measureCutOverhead, smallestUsefulCut } from '../../src/budget/smallest-useful-cut.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';

const tokenizer = createTiktokenTokenizer();
afterAll(() => tokenizer.dispose());

describe('smallestUsefulCut: the pin-time minimum and the planner agree', () => {
  const target = { scope: 'pipeline', server: 'gitnexus', uri: 'gitnexus://repo/acme-shop/context' } as const;
  const minTokens = 64;

  it('a cap one below the minimum is omitted by the planner as too small; at the minimum it cuts to minTokens of content', async () => {
    const minimum = await smallestUsefulCut(target, tokenizer, minTokens);
    // The planner's cost of a cut of the same facts (the content pin time does not know, at its shortest).
    const overhead = await measureCutOverhead(
      { ...target, mimeType: '', sha256: '0'.repeat(64), originalTokens: minTokens + 1 },
      tokenizer,
    );
    const item = {
      fullTokens: 10_000,
      truncatedOverheadTokens: overhead.frameTokens + overhead.markerTokens,
    };
    const options = { availableTokens: 50_000, minTokens, strategy: 'fair' } as const;
    const [below] = planBudget([{ ...item, capTokens: minimum - 1 }], options);
    expect(below).toMatchObject({
      fate: 'omitted',
      reason: expect.stringContaining('below the smallest useful cut'),
    });
    const [at] = planBudget([{ ...item, capTokens: minimum }], options);
    expect(at).toEqual({ fate: 'truncated', tokens: minimum, contentTokens: minTokens });
  });

  it('grows with what the frame and marker must name, and with minTokens', async () => {
    const short = await smallestUsefulCut(
      { scope: 'pipeline', server: 's', uri: 'x://a' },
      tokenizer,
      minTokens,
    );
    const long = await smallestUsefulCut(target, tokenizer, minTokens);
    expect(long).toBeGreaterThan(short);
    expect(await smallestUsefulCut(target, tokenizer, 0)).toBe(long - minTokens);
  });
});
