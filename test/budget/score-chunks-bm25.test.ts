import { describe, expect, it } from 'vitest';
import { scoreChunksBm25, termsOf } from '../../src/budget/truncate/score-chunks-bm25.js';

describe('termsOf', () => {
  it('lower-cased letter and digit runs; single characters only from scripts written without spaces', () => {
    expect(termsOf('Checkout FAILS at a x_1 2 step')).toEqual(['checkout', 'fails', 'at', 'x_1', 'step']);
    expect(termsOf('支付 ｘ')).toEqual(['支', '付', 'ｘ']);
    expect(termsOf('!?')).toEqual([]);
  });
});

describe('scoreChunksBm25', () => {
  it('is Okapi BM25 (k1 1.2, b 0.75) over the chunks, per query term', () => {
    const text = 'pay pay cart\npay now\nstock list items here\n';
    const chunks = [
      { start: 0, end: 13 },
      { start: 13, end: 21 },
      { start: 21, end: text.length },
    ];
    // 3 chunks, 2 contain "pay"; lengths 3, 2 and 4 terms, 3 on average.
    const idf = Math.log(1 + (3 - 2 + 0.5) / (2 + 0.5));
    const score = (frequency: number, length: number) =>
      (idf * frequency * 2.2) / (frequency + 1.2 * (0.25 + (0.75 * length) / 3));
    const scores = scoreChunksBm25(text, chunks, 'Pay?');
    expect(scores).toHaveLength(3);
    expect(scores[0]).toBeCloseTo(score(2, 3), 12);
    expect(scores[1]).toBeCloseTo(score(1, 2), 12);
    expect(scores[2]).toBe(0);
  });

  it('ranks the chunk that mentions the query terms highest, rare terms weighing more', () => {
    const text = 'the cart and the stock\n\nthe checkout fails at payment\n\nthe the the the\n';
    const chunks = [
      { start: 0, end: 23 },
      { start: 23, end: 54 },
      { start: 54, end: text.length },
    ];
    const scores = scoreChunksBm25(text, chunks, 'why does checkout fail at payment?');
    expect(scores[1]).toBeGreaterThan(scores[0] ?? 0);
    expect(scores[2]).toBe(0);
  });

  it('matches CJK text character by character', () => {
    const text = '支付失败的原因\n\n库存管理\n';
    const scores = scoreChunksBm25(
      text,
      [
        { start: 0, end: 8 },
        { start: 8, end: text.length },
      ],
      '为什么支付失败',
    );
    expect(scores[0]).toBeGreaterThan(scores[1] ?? 0);
  });

  it('a query without terms scores every chunk 0', () => {
    expect(scoreChunksBm25('pay now', [{ start: 0, end: 7 }], '?')).toEqual([0]);
  });
});
