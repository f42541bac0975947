import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { indexChunks, scoreQuery } from '../../src/budget/truncate/chunk-index.js';
import { scoreChunksBm25 } from '../../src/budget/truncate/score-chunks-bm25.js';
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
const query = fc.array(fc.constantFrom(...pieces), { maxLength: 8 }).map((parts) => parts.join(' '));

describe('the chunk index', () => {
  it('scores every chunk as scoreChunksBm25 does over the same chunks, bit for bit, for random bodies and queries', () => {
    fc.assert(
      fc.property(body, query, fc.nat(40), (text, words, from) => {
        const start = Math.min(from, text.length);
        const index = indexChunks(text, start);
        const chunks = splitIntoChunks(text, start);
        expect([...index.starts]).toEqual(chunks.map((chunk) => chunk.start));
        expect([...index.ends]).toEqual(chunks.map((chunk) => chunk.end));
        expect([...scoreQuery(index, words)]).toEqual(scoreChunksBm25(text, chunks, words));
      }),
      { numRuns: 400, seed: 3 },
    );
  });
});
