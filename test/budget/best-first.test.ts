import { describe, expect, it } from 'vitest';
import { bestFirst } from '../../src/budget/truncate/best-first.js';

function drain(scores: Float64Array): number[] {
  const next = bestFirst(scores);
  const order: number[] = [];
  for (let chunk = next(); chunk !== undefined; chunk = next()) order.push(chunk);
  return order;
}

describe('bestFirst', () => {
  it('gives the chunks scored above zero, best first, ties in document order', () => {
    expect(drain(new Float64Array([0, 2, 5, 2, 0, 7, 2, 5]))).toEqual([5, 2, 7, 1, 3, 6]);
    expect(drain(new Float64Array([0, 0]))).toEqual([]);
    expect(drain(new Float64Array([]))).toEqual([]);
  });

  it('is the order a sort by score then position gives, for random scores with many ties', () => {
    let seed = 3;
    const next = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    for (let run = 0; run < 500; run++) {
      const scores = Float64Array.from({ length: next(300) }, () => (next(4) === 0 ? 0 : next(12) / 4));
      const sorted = [...scores.keys()]
        .filter((chunk) => (scores[chunk] as number) > 0)
        .sort((a, c) => (scores[c] as number) - (scores[a] as number) || a - c);
      expect(drain(scores)).toEqual(sorted);
    }
  });
});
