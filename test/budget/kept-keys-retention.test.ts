import { afterAll, describe, expect, it } from 'vitest';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import { liveHeap } from '../faults/fault-harness.js';

const mebibyte = 1024 * 1024;
const bodies = 40;

/**
 * A distinct body of 1 MiB (V8 holds it at a byte a character), built in place so that the test
 * holds it only while it counts cuts of it. Its start has a long piece of its own (a run of one
 * letter, which the piece cache keeps up to 256 characters).
 */
function body(index: number): string {
  return `${index} ${'q'.repeat(100 + index)} `.padEnd(mebibyte, 'lorem ipsum dolor sit amet, ');
}

// The caches that keep a text cut from a body (the short-count cache keys by the text itself,
// the piece cache by each piece) must keep a copy: a cut of 13 characters or more is a view of
// the whole body in V8, which the cache would otherwise keep alive after the body is gone.
describe('what the tokenizer keeps of a text cut from a body', () => {
  const tokenizer = createTiktokenTokenizer();
  afterAll(() => tokenizer.dispose());

  it('short counts and pieces keep copies, not the bodies they were cut from', async () => {
    const before = liveHeap();
    for (let index = 0; index < bodies; index++) {
      const text = body(index);
      // Short texts (under the hashed cache's 1,024 characters), the first with the long piece.
      expect(tokenizer.countShort?.(text.slice(0, 600))).toBeGreaterThan(0);
      expect(await tokenizer.count(text.slice(700, 1000 + index))).toBeGreaterThan(0);
    }
    const grown = liveHeap() - before;
    // Kept: 80 texts of under 1,024 characters and 40 pieces. Held alive, the bodies would be 40 MiB.
    expect(grown).toBeLessThan(8 * mebibyte);
  });

  it('a short count asked not to keep (a body`s chunk, kept by its index) keeps nothing, and is the same count', async () => {
    // 6,000 distinct chunks of 900 characters: kept, their copies alone would be over 5 MiB.
    const chunk = (index: number) => `${index} `.padEnd(900, `lorem ipsum ${index % 97} dolor sit amet, `);
    for (let index = 0; index < 50; index++)
      expect(tokenizer.countShort?.(chunk(index), false)).toBe(await tokenizer.count(`${chunk(index)}`));
    const before = liveHeap();
    let tokens = 0;
    for (let index = 100; index < 6_100; index++) tokens += tokenizer.countShort?.(chunk(index), false) ?? 0;
    expect(tokens).toBeGreaterThan(6_000 * 100);
    expect(liveHeap() - before).toBeLessThan(mebibyte);
  });
});
