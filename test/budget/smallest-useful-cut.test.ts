import { afterAll, describe, expect, it } from 'vitest';
import { planBudget } from '../../src/budget/plan-budget.js';
import { measureCutOverhead, smallestUsefulCut } from '../../src/budget/smallest-useful-cut.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import { createCharTokenizer } from './char-tokenizer.js';

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

describe('measureCutOverhead', () => {
  const { tokenizer } = createCharTokenizer();
  const facts = {
    scope: 'pipeline',
    server: 'docs',
    uri: 'docs://guide',
    mimeType: 'text/plain',
    sha256: 'ab'.repeat(32),
    originalTokens: 900,
  } as const;

  it('counts the frame of a cut (marked truncated, no content) and the longest marker its facts allow', async () => {
    // <mcp-resource … tokens="900" truncated="true">, a marker of range 900-900 of 901, and a
    // brief one of that range, always estimated (`relevant`'s): "\n[truncated: ~0 tokens omitted
    // (tokens ~900-~900)]\n", 51 characters.
    expect(await measureCutOverhead(facts, tokenizer)).toEqual({
      frameTokens: 157,
      markerTokens: 141,
      briefMarkerTokens: 51,
    });
  });

  it('an estimated count adds its ~ to the frame and to every number of the marker', async () => {
    expect(await measureCutOverhead({ ...facts, originalTokensEstimated: true }, tokenizer)).toEqual({
      frameTokens: 158,
      markerTokens: 145,
      briefMarkerTokens: 51,
    });
  });
});
