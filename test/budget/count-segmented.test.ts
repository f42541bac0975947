import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { countJoined } from '../../src/budget/count-joined.js';
import { countSegmented } from '../../src/budget/count-segmented.js';
import { isPieceEdge } from '../../src/budget/find-safe-boundary.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
import { truncationMarker } from '../../src/budget/truncation-marker.js';
import { frameResource } from '../../src/render/frame-resource.js';
import type { BlockProvenance } from '../../src/types.js';
import { createCharTokenizer } from './char-tokenizer.js';

const o200k = createTiktokenTokenizer('o200k_base');
const cl100k = createTiktokenTokenizer('cl100k_base');
const references = { o200k: get_encoding('o200k_base'), cl100k: get_encoding('cl100k_base') };
afterAll(() => {
  o200k.dispose();
  cl100k.dispose();
  references.o200k.free();
  references.cl100k.free();
});

/** Each tokenizer under test with the count it must equal: tiktoken's own, code points. */
const tokenizers = [
  { name: 'o200k', tokenizer: o200k, whole: (text: string) => references.o200k.encode_ordinary(text).length },
  {
    name: 'cl100k',
    tokenizer: cl100k,
    whole: (text: string) => references.cl100k.encode_ordinary(text).length,
  },
  {
    name: 'chars',
    tokenizer: createCharTokenizer().tokenizer,
    whole: (text: string) => Array.from(text).length,
  },
];

/** A tokenizer passing every count and encoding to `inner`, noting what it was asked for. */
function recording(inner: Tokenizer): { tokenizer: Tokenizer; counted: string[] } {
  const counted: string[] = [];
  return {
    counted,
    tokenizer: {
      ...inner,
      count: (text) => {
        counted.push(text);
        return inner.count(text);
      },
      encode: (text) => {
        counted.push(`encode ${text}`);
        return inner.encode(text);
      },
    },
  };
}

// Pieces of attribute values that make tokens span a segment join: punctuation at either end
// ('/', '"' escaped to &quot;, '>' escaped to &gt;), whitespace runs and kinds (tab, NBSP,
// U+0085, ideographic space, line ends), CJK, emoji, digit runs (o200k groups digits by 1–3),
// special-token text, letters and contractions.
const valuePieces = [
  '/',
  '//',
  '"',
  '>',
  '<',
  '&',
  ' ',
  '  ',
  '   ',
  '\t',
  '\u00a0',
  '\u0085',
  '\u3000',
  '\ufeff',
  '\n',
  '\r\n',
  ' \n',
  '\n/',
  'docs',
  ' word',
  'Payments',
  "'s",
  '日本語のテキスト',
  '🎉👩‍👩‍👧‍👦',
  '7',
  '12',
  '12345',
  '1234567',
  ' 42',
  '²',
  '<|endoftext|>',
  '.',
  ':',
  '=',
  '–',
  '~',
];
const value = fc.array(fc.constantFrom(...valuePieces), { maxLength: 12 }).map((pieces) => pieces.join(''));
// Now and then a value far longer than a segment worth keeping, or than a piece tiktoken
// encodes in one go.
const anyValue = fc.oneof(
  { weight: 8, arbitrary: value },
  { weight: 1, arbitrary: fc.constantFrom('a'.repeat(700), '9'.repeat(300), `${'/x'.repeat(150)} end`) },
);

const provenance: fc.Arbitrary<BlockProvenance> = fc.record(
  {
    scope: fc.constantFrom('pipeline', 'conversation', 'message'),
    server: anyValue,
    uri: anyValue,
    mimeType: value,
    sha256: fc.constantFrom('0'.repeat(64), 'c94282925014d7db'.repeat(4)),
    truncated: fc.boolean(),
    originalTokens: fc.nat(10_000_000),
    originalTokensEstimated: fc.boolean(),
    lastModified: value,
    skill: fc.record({ name: value, description: anyValue }),
  },
  { requiredKeys: ['scope', 'server', 'uri', 'mimeType', 'sha256', 'truncated'] },
);

const marker = fc
  .record({
    server: anyValue,
    uri: anyValue,
    originalTokens: fc.nat(10_000_000),
    estimated: fc.boolean(),
    start: fc.nat(10_000_000),
    length: fc.nat(10_000_000),
  })
  .map(({ start, length, ...facts }) =>
    truncationMarker({ ...facts, range: { startToken: start, endToken: start + length } }),
  );

describe('countSegmented', () => {
  for (const { name, tokenizer, whole } of tokenizers) {
    it(`property (${name}): a frame or a marker counted in segments counts exactly what the whole text does`, async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            provenance.map((facts) => frameResource(facts, '')),
            marker,
            fc.tuple(provenance, marker).map(([facts, cut]) => frameResource(facts, `${'Body text.'}${cut}`)),
          ),
          async (text) => {
            expect(await countSegmented(text, tokenizer)).toBe(whole(text));
          },
        ),
        { numRuns: 300, seed: 13 },
      );
    });
  }

  it('property (o200k): frames around counted bodies, counted as parts at render, count what the rendering does', async () => {
    const body = fc.array(fc.constantFrom(...valuePieces, 'line one\n', '\n\n', 'x'), { maxLength: 30 });
    await fc.assert(
      fc.asyncProperty(provenance, body, marker, async (facts, pieces, cut) => {
        const content = pieces.join('');
        const empty = frameResource(facts, '');
        const close = '\n</mcp-resource>\n\n';
        const open = empty.slice(0, empty.length - close.length);
        const text = frameResource(facts, content + cut);
        // Only meaningful while the frame is open tag + content + close tag, as rendering checks.
        fc.pre(text === open + content + cut + close);
        const parts = [
          { text: open },
          { text: content, tokens: references.o200k.encode_ordinary(content).length },
          { text: cut },
          { text: close },
        ];
        expect(await countJoined(parts, o200k)).toBe(references.o200k.encode_ordinary(text).length);
      }),
      { numRuns: 300, seed: 13 },
    );
  });

  it('counts each distinct segment once per tokenizer: a second frame costs what is new in it', async () => {
    const { tokenizer, counted } = recording(createTiktokenTokenizer());
    const facts: BlockProvenance = {
      scope: 'pipeline',
      server: 'bulk',
      uri: 'bulk://doc/0',
      mimeType: 'text/plain',
      sha256: 'c94282925014d7db'.repeat(4),
      truncated: true,
      originalTokens: 16_000,
    };
    // New: every distinct segment, encoded together in one call and each count read off it
    // (the `"` after 16000 is the one after doc/0 again).
    const first = frameResource(facts, '');
    expect(await countSegmented(first, tokenizer)).toBe(references.o200k.encode_ordinary(first).length);
    expect(counted).toEqual([`encode ${first.replace('16000"', '16000')}`]);
    counted.length = 0;
    // Only the number that differs, cut out at the edges of its digit run.
    const second = frameResource({ ...facts, uri: 'bulk://doc/1' }, '');
    expect(await countSegmented(second, tokenizer)).toBe(references.o200k.encode_ordinary(second).length);
    expect(counted).toEqual(['1']);
    counted.length = 0;
    // Two new segments far apart: one text, with a separator where their join is no boundary.
    const third = frameResource({ ...facts, uri: 'bulk://docs/a', sha256: 'ab'.repeat(32) }, '');
    expect(await countSegmented(third, tokenizer)).toBe(references.o200k.encode_ordinary(third).length);
    // (` sha` and `256` are known; `"` then `=` could merge, so a space and a newline go between.)
    expect(counted).toEqual(['encode  uri="bulk://docs/a" \n="abababababababab"']);
    counted.length = 0;
    // Concurrent counts of the same text wait for one count of each segment.
    const fourth = frameResource({ ...facts, uri: 'bulk://doc/2' }, '');
    await Promise.all([countSegmented(fourth, tokenizer), countSegmented(fourth, tokenizer)]);
    expect(counted).toEqual(['2']);
    tokenizer.dispose();
  });

  it('cuts at piece edges only for a tokenizer that declares them, and reads counts off one encoding only with countPrefix', async () => {
    const frame = '<mcp-resource server="docs" uri="docs://a" tokens="42">\n';
    const chars = recording(createCharTokenizer().tokenizer);
    expect(await countSegmented(frame, chars.tokenizer)).toBe(frame.length);
    // The one safe boundary of find-safe-boundary.ts: after a letter, before a letter.
    expect(chars.counted).toEqual(['<mcp-resource', ' server="docs" uri="docs://a" tokens="42">\n']);
    const declared = recording({ ...createCharTokenizer().tokenizer, splitsAtPieceEdges: true });
    expect(await countSegmented(frame, declared.tokenizer)).toBe(frame.length);
    expect(declared.counted).toEqual([
      '<mcp-resource',
      ' server="docs"',
      ' uri="docs://a"',
      ' tokens="',
      '42',
      '">\n',
    ]);
    const reading = recording({
      ...createCharTokenizer({ prefix: true }).tokenizer,
      splitsAtPieceEdges: true,
    });
    expect(await countSegmented(frame, reading.tokenizer)).toBe(frame.length);
    expect(reading.counted).toEqual([`encode ${frame}`]);
  });
});

describe('isPieceEdge', () => {
  // Text around spaces: every piece kind o200k and cl100k make, and runs of whitespace.
  const fragments = [
    ...valuePieces,
    '>\n',
    '\n\n',
    '    ',
    'x'.repeat(20),
    '<mcp-resource',
    '{"offset":10}]',
  ];
  const text = fc.array(fc.constantFrom(...fragments), { maxLength: 40 }).map((pieces) => pieces.join(''));

  for (const encoding of ['o200k', 'cl100k'] as const) {
    it(`property (${encoding}): cutting at any piece edge leaves counts that add up to the whole's`, () => {
      const reference = references[encoding];
      fc.assert(
        fc.property(text, (sample) => {
          const whole = reference.encode_ordinary(sample).length;
          for (let index = 1; index < sample.length; index++) {
            if (!isPieceEdge(sample, index)) continue;
            const left = reference.encode_ordinary(sample.slice(0, index)).length;
            const right = reference.encode_ordinary(sample.slice(index)).length;
            expect(left + right, JSON.stringify([sample, index])).toBe(whole);
          }
        }),
        { numRuns: 1000, seed: 13 },
      );
    });
  }

  it('is a space after anything but whitespace (White_Space, as tiktoken reads it), or an end of an ASCII digit run between ASCII', () => {
    expect(isPieceEdge('"docs" uri', 6)).toBe(true);
    expect(isPieceEdge('tokens 42', 6)).toBe(true);
    expect(isPieceEdge('a  b', 2)).toBe(false);
    expect(isPieceEdge('a\u0085 b', 2)).toBe(false);
    expect(isPieceEdge('a\u3000 b', 2)).toBe(false);
    expect(isPieceEdge('a\ufeff b', 2)).toBe(true);
    expect(isPieceEdge('a.\nb', 2)).toBe(false);
    expect(isPieceEdge('="~9901"', 3)).toBe(true);
    expect(isPieceEdge('="~9901"', 7)).toBe(true);
    expect(isPieceEdge('="~9901"', 5)).toBe(false);
    expect(isPieceEdge('x ١٢', 3)).toBe(false);
    expect(isPieceEdge('²7', 1)).toBe(false);
    expect(isPieceEdge(' 7', 1)).toBe(false);
  });
});
