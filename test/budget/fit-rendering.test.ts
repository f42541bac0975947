import { describe, expect, it } from 'vitest';
import { fitRendering, maxRefinements } from '../../src/budget/fit-rendering.js';

describe('fitRendering', () => {
  it('returns the first attempt that fits', async () => {
    let renders = 0;
    const fitted = await fitRendering(
      async () => ({ fits: ++renders === 3, round: renders }),
      () => true,
    );
    expect(fitted).toEqual({ fits: true, round: 3 });
  });

  it(`renders at most ${maxRefinements + 1} times, shrinking between them, then gives up`, async () => {
    let renders = 0;
    let shrinks = 0;
    const fitted = await fitRendering(
      async () => ({ fits: false, round: ++renders }),
      () => ++shrinks > 0,
    );
    expect(fitted).toBeUndefined();
    expect(maxRefinements).toBe(8);
    expect(renders).toBe(9);
    expect(shrinks).toBe(8);
  });

  it('gives up as soon as shrink has nothing left to take', async () => {
    let renders = 0;
    expect(
      await fitRendering(
        async () => ({ fits: false, round: ++renders }),
        () => false,
      ),
    ).toBeUndefined();
    expect(renders).toBe(1);
  });
});
