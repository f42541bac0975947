import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexChunks, scoreQuery } from '../../src/budget/truncate/chunk-index.js';
import { scoreChunksBm25, termsOf } from '../../src/budget/truncate/score-chunks-bm25.js';
import { splitIntoChunks } from '../../src/budget/truncate/split-into-chunks.js';

// Words and separators a body is made of: ASCII in every case, digits and underscores, and what
// termsOf reads differently from ASCII (accents, the Kelvin sign that lower-cases to `k`, a dotted
// capital I that lower-cases to two code units, scripts without spaces, an emoji), and line ends
// and blank lines that make chunks.
const pieces = [
  'Checkout',
  'FAILS',
  'at',
  'a',
  'x_1',
  '2',
  '42',
  'payment',
  'PAYMENT',
  'Pay',
  'retry_',
  '_',
  'refund',
  'café',
  '\u212aey',
  'İstanbul',
  '支付',
  'ｘ',
  '😀',
  'naïve',
  ' ',
  ' ',
  ' ',
  '\n',
  '\n\n',
  '.',
  ', ',
  '-',
  '/',
  '(',
  ')',
  '\t',
];
const body = fc.array(fc.constantFrom(...pieces), { maxLength: 1500 }).map((parts) => parts.join(''));
// Bodies of ASCII only, which the index reads in place (not through termsOf): at 1,500 pieces
// nearly every body above has a character that is not.
const asciiPieces = pieces.filter((piece) => !/[\u0080-\uffff]/.test(piece));
const asciiBody = fc
  .array(fc.constantFrom(...asciiPieces, 'Z', 'z9', '@', '[', '`', '{', '~'), { maxLength: 1500 })
  .map((parts) => parts.join(''));
const query = fc.array(fc.constantFrom(...pieces), { maxLength: 8 }).map((parts) => parts.join(' '));

describe('the chunk index', () => {
  // Random bodies mostly go through termsOf; ASCII ones are read in place.
  it.each([
    ['random bodies', body, 3],
    ['ASCII bodies, read in place', asciiBody, 5],
  ] as const)(
    'scores every chunk as scoreChunksBm25 does over the same chunks, bit for bit, for %s and queries',
    (_, bodies, seed) => {
      fc.assert(
        fc.property(bodies, query, fc.nat(40), (text, words, from) => {
          const start = Math.min(from, text.length);
          const index = indexChunks(text, start);
          const chunks = splitIntoChunks(text, start);
          expect([...index.starts]).toEqual(chunks.map((chunk) => chunk.start));
          expect([...index.ends]).toEqual(chunks.map((chunk) => chunk.end));
          expect([...scoreQuery(index, words)]).toEqual(scoreChunksBm25(text, chunks, words));
          // Every term of the body, and no other, has postings.
          const terms = new Set(chunks.flatMap((chunk) => termsOf(text.slice(chunk.start, chunk.end))));
          expect(new Set(index.termIds.keys())).toEqual(terms);
        }),
        { numRuns: 400, seed },
      );
    },
  );

  it('reads an ASCII body of thousands of distinct terms in place (its table of terms grows), as termsOf does', () => {
    // Each word twice, the second time after the table has grown to hold them all.
    const words = Array.from(
      { length: 3000 },
      (_, word) => `W${word * 7919}x${word % 13 === 0 ? '\n\n' : ' '}`,
    );
    const text = [...words, ...words.reverse()].join('');
    const index = indexChunks(text, 0);
    const chunks = splitIntoChunks(text, 0);
    const terms = new Set(chunks.flatMap((chunk) => termsOf(text.slice(chunk.start, chunk.end))));
    expect(terms.size).toBe(3000);
    expect(new Set(index.termIds.keys())).toEqual(terms);
    // Every term's postings, (chunk, frequency) pairs, as termsOf's words give them.
    const expected = new Map<string, number[]>();
    for (const [at, chunk] of chunks.entries()) {
      for (const term of termsOf(text.slice(chunk.start, chunk.end))) {
        const pairs = expected.get(term) ?? [];
        if (pairs[pairs.length - 2] === at) pairs[pairs.length - 1] = (pairs[pairs.length - 1] as number) + 1;
        else pairs.push(at, 1);
        expected.set(term, pairs);
      }
    }
    for (const [term, id] of index.termIds) {
      const postings = index.postings.subarray(index.offsets[id], index.offsets[id + 1]);
      expect([...postings], term).toEqual(expected.get(term));
    }
    for (const words of ['w0x w7919x', 'W23757000x w15838x', 'w22x nothing']) {
      expect([...scoreQuery(index, words)]).toEqual(scoreChunksBm25(text, chunks, words));
    }
  });
});
