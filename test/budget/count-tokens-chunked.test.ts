import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { bytePairEncode } from '../../src/budget/byte-pair-encode.js';
import { chunkChars, encodeChunked } from '../../src/budget/count-tokens-chunked.js';
import { encodeGuarded, type PieceEncoder } from '../../src/budget/encode-guarded.js';
import { isSafeBoundary } from '../../src/budget/find-safe-boundary.js';
import { preTokenizePattern } from '../../src/budget/pre-tokenize-pattern.js';
import { longRunChars, PieceScanner } from '../../src/budget/scan-pieces.js';

const encoder = get_encoding('o200k_base');
afterAll(() => encoder.free());

/** The tokenizer's piece encoder, with a record of every text tiktoken itself was given. */
function pieceEncoder(seen: string[] = []): PieceEncoder {
  return {
    ordinary: (text) => {
      seen.push(text);
      return encoder.encode_ordinary(text);
    },
    scanner: new PieceScanner('o200k_base'),
    longPiece: (piece) => bytePairEncode('o200k_base', piece),
  };
}
const encodePiece = pieceEncoder();

const lines = [
  'function foo(bar) {',
  '  return bar.map((x) => x * 2);',
  '}',
  '// comment /path/to',
  '/usr/bin/env node',
  '日本語のテキストと中文内容。',
  'The quick brown fox jumps over the lazy dog.',
  '',
  '  - name: Payments',
  '🎉👩‍👩‍👧‍👦🚀 party',
  '<|endoftext|>',
  '\t\tindented',
  'x'.repeat(50),
  '.',
];

function mixedText(chars: number): string {
  let text = '';
  for (let index = 0; text.length < chars; index++) {
    text += `${lines[(index * 7919) % lines.length]}${index % 13 === 0 ? '\n\n' : '\n'}`;
  }
  return text;
}

describe('encodeChunked windows', () => {
  // 1,000 lines of 45 characters, 10 tokens each: every line start is a safe boundary, so each
  // window ends (or, from the end, starts) at the line start at or before (after) its size.
  const text = 'The quick brown fox jumps over the lazy dog.\n'.repeat(1000);

  it('sizes a window from the tokens still wanted: ~4 characters a token, then the ratio seen plus an eighth', async () => {
    // 1,000 tokens: a first window of 4,000 characters (3,960: 88 lines, 880 tokens), then the
    // 120 tokens still wanted at 3,960 / 880 × 1.125 = 5.0625 characters a token: 608 more
    // (4,545: 101 lines, 1,010 tokens, past the limit).
    const head = await encodeChunked(text, encodePiece, { limitTokens: 1000 });
    expect(head).toStrictEqual({
      tokens: new Uint32Array(0),
      count: 1010,
      start: 0,
      end: 4545,
      complete: false,
    });
    // From the end, the same windows back from 45,000: to the line starts at 41,040 and 40,455.
    const tail = await encodeChunked(text, encodePiece, { limitTokens: 1000, fromEnd: true });
    expect(tail).toStrictEqual({
      tokens: new Uint32Array(0),
      count: 1010,
      start: 40_455,
      end: 45_000,
      complete: false,
    });
  });

  it('reads at least 1,024 characters first and 256 after, and goes on while the count is at the limit', async () => {
    // 3 tokens: 1,024 characters (990: 22 lines, 220 tokens), past the limit.
    expect(await encodeChunked(text, encodePiece, { limitTokens: 3 })).toMatchObject({
      count: 220,
      end: 990,
    });
    // 220 tokens: the same first window reaches the limit but not past it; 256 more (to 1,215).
    expect(await encodeChunked(text, encodePiece, { limitTokens: 220 })).toMatchObject({
      count: 270,
      end: 1215,
    });
  });

  it('reads whole chunks of 16,384 characters at most, and counts the whole text without a limit', async () => {
    // 5,000 tokens would want 20,000 characters: one chunk of 16,384 (16,380: 364 lines, 3,640
    // tokens), then 1,360 tokens at 5.0625 characters: 6,885 more (23,265: 517 lines).
    expect(await encodeChunked(text, encodePiece, { limitTokens: 5000 })).toMatchObject({
      count: 5170,
      end: 23_265,
    });
    expect(await encodeChunked(text, encodePiece)).toStrictEqual({
      tokens: new Uint32Array(0),
      count: 10_000,
      start: 0,
      end: 45_000,
      complete: true,
    });
  });
});

describe('encodeChunked without safe boundaries: where a chunk ends', () => {
  // No newline and no space: every cut comes from walking the pre-tokenizer's pieces. ".abc" is
  // one piece (a full stop takes the letters after it) of two tokens, "." and "abc", so pieces
  // end at every multiple of 4; a run of one lower-case letter is one piece, 8 letters a token.
  // A limit of 3 tokens reads a first window of 1,024 characters and stops after it.
  const pieces = '.abc'.repeat(600);

  it('from the start, the chunk takes every piece that ends within the window, one ending on its edge included', async () => {
    // The window ends at 1,024, where the 256th piece ends.
    expect(await encodeChunked(pieces, encodePiece, { limitTokens: 3, keepTokens: true })).toStrictEqual({
      tokens: encoder.encode_ordinary(pieces.slice(0, 1024)),
      count: 512,
      start: 0,
      end: 1024,
      complete: false,
    });
  });

  it('from the end, the chunk starts at the first piece boundary in the window, or where the piece across it starts', async () => {
    // The window starts at 2,400 - 1,024 = 1,376, where the 344th piece ends.
    expect(
      await encodeChunked(pieces, encodePiece, { limitTokens: 3, fromEnd: true, keepTokens: true }),
    ).toStrictEqual({
      tokens: encoder.encode_ordinary(pieces.slice(1376)),
      count: 512,
      start: 1376,
      end: 2400,
      complete: false,
    });
    // A 2,000-letter piece runs across the window's start (1,376) and ends at 2,000: the chunk
    // starts there, at the end of the piece, not at its start.
    const longThenPieces = `${'a'.repeat(2000)}${'.abc'.repeat(100)}`;
    expect(await encodeChunked(longThenPieces, encodePiece, { limitTokens: 3, fromEnd: true })).toMatchObject(
      { count: 200, start: 2000, end: 2400 },
    );
  });

  it("from the end, a piece that runs from the text's start to the end is one chunk (no empty chunk cut at the end)", async () => {
    // The window starts at 1,376, inside the piece; walked from 0, the piece ends at 2,400.
    const onePiece = 'a'.repeat(2400);
    expect(await encodeChunked(onePiece, encodePiece, { limitTokens: 3, fromEnd: true })).toMatchObject({
      count: 300,
      start: 0,
      end: 2400,
      complete: true,
    });
  });
});

describe('safe boundaries', () => {
  it('a newline followed by "/" or whitespace is not a boundary ("\\n/" can merge in o200k)', () => {
    expect(isSafeBoundary('a.\n/b', 3)).toBe(false);
    expect(isSafeBoundary('a\n  b', 2)).toBe(false);
    expect(isSafeBoundary('a\nb', 2)).toBe(true);
    expect(isSafeBoundary('foo bar', 3)).toBe(true);
    expect(isSafeBoundary('foo  bar', 3)).toBe(false);
  });
});

describe('encodeGuarded', () => {
  it('counts long runs exactly as tiktoken does: one letter, capitals, whitespace, base64-like, CJK, emoji, slashes', () => {
    const runs = [
      'a'.repeat(4096),
      'A'.repeat(3001),
      `x${' '.repeat(2000)}y`,
      `${'\n'.repeat(700)}/${'/'.repeat(600)}`,
      `QUFB${'A'.repeat(3000)}ZZZZ`.repeat(3),
      `data:${'QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo'.repeat(40)}`,
      '日本語のテキストと中文内容'.repeat(120),
      `!${'🎉'.repeat(600)}`,
      `<|endoftext|>${'\t'.repeat(900)}`,
    ];
    for (const run of runs) {
      expect([...encodeGuarded(run, encodePiece)]).toEqual([...encoder.encode_ordinary(run)]);
    }
  });

  it('never hands tiktoken a piece longer than longRunChars, so 64 KB of one letter is not quadratic', () => {
    // tiktoken's BPE is quadratic in one piece's length: 64 KB of "a" in one call takes ~2.8 s.
    const seen: string[] = [];
    const tokens = encodeGuarded(`head text ${'a'.repeat(65_536)} tail text`, pieceEncoder(seen));
    expect(seen).toEqual(['head text', ' tail text']);
    // " aaaa…" is one piece: 8 a's per token after the leading " a"-merge, by tiktoken's own rules.
    expect(tokens).toHaveLength(
      encoder.encode_ordinary('head text').length +
        bytePairEncode('o200k_base', ` ${'a'.repeat(65_536)}`).length +
        encoder.encode_ordinary(' tail text').length,
    );
  });

  it('finds long pieces that mix character kinds: whitespace of every kind, punctuation with "/"', () => {
    // Each run is one piece of ~600 characters (o200k_base): a space alternating with each other
    // White_Space character; "!" alternating with "/", U+FEFF or a control character (all of
    // them punctuation to tiktoken); newlines alternating with "/" (a punctuation piece's tail).
    const whitespace = '\t\v\f\r\u0085\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000';
    const runs = [
      ...Array.from(whitespace, (character) => `x${` ${character}`.repeat(300)}y`),
      `x${'!/'.repeat(300)}y`,
      `x${'!\ufeff'.repeat(300)}y`,
      `x${'!\u0001'.repeat(300)}y`,
      `x!${'\n/'.repeat(300)}y`,
    ];
    const handedWhole: string[] = [];
    for (const run of runs) {
      const seen: string[] = [];
      expect([...encodeGuarded(run, pieceEncoder(seen))]).toEqual([...encoder.encode_ordinary(run)]);
      if (seen.some((text) => text.length > longRunChars)) handedWhole.push(run.slice(0, 3));
    }
    expect(handedWhole).toEqual([]);
  });

  it('leaves text without long runs to one tiktoken call, compact JSON included', () => {
    const json = JSON.stringify(
      Array.from({ length: 300 }, (_, index) => ({ id: index, name: `item ${index}` })),
    );
    const seen: string[] = [];
    expect(encodeGuarded(json, pieceEncoder(seen))).toEqual(encoder.encode_ordinary(json));
    expect(seen).toEqual([json]);
  });
});

describe('bytePairEncode', () => {
  it('encodes long pieces of varied letters, CJK and symbols token for token as tiktoken does (many merges in its heap)', () => {
    // A fixed pseudo-random sequence (a linear congruential generator), so the pieces are the same every run.
    let seed = 7;
    const next = (modulo: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % modulo;
    };
    const pick = (alphabet: string, length: number) =>
      Array.from({ length }, () => alphabet[next(alphabet.length)]).join('');
    const pieces = [
      pick('abcdefghijklmnopqrstuvwxyz', 3000),
      ` ${pick('etaoinshrdlu', 2000)}`,
      pick('日本語中文内容のテキスト', 700),
      pick('!#$%&*+-=?@^_|~', 1500),
    ];
    for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
      const reference = encoding === 'o200k_base' ? encoder : get_encoding(encoding);
      for (const piece of pieces) {
        expect([...bytePairEncode(encoding, piece)]).toEqual([...reference.encode_ordinary(piece)]);
      }
      if (reference !== encoder) reference.free();
    }
  });

  it('property: the pieces of any text encode token for token as tiktoken encodes the text (o200k and cl100k)', () => {
    const alphabet = [
      'a',
      'A',
      'é',
      '\u0301',
      ' ',
      '\n',
      '\r',
      '\t',
      '/',
      '1',
      '日',
      '🎉',
      '!',
      "'s",
      "'LL",
      '\u00a0',
      '\ufeff',
      '<|endoftext|>',
      'Zm9v',
    ];
    for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
      const reference = encoding === 'o200k_base' ? encoder : get_encoding(encoding);
      const pieces = preTokenizePattern(encoding);
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 80 }), (parts) => {
          const text = parts.join('');
          const tokens: number[] = [];
          for (let position = 0; position < text.length; ) {
            pieces.lastIndex = position;
            const piece = pieces.exec(text)?.[0] ?? '';
            expect(piece.length).toBeGreaterThan(0);
            tokens.push(...bytePairEncode(encoding, piece));
            position += piece.length;
          }
          expect(tokens).toEqual([...reference.encode_ordinary(text)]);
        }),
        { numRuns: 400, seed: 13 },
      );
      if (reference !== encoder) reference.free();
    }
  });
});

// The slow exactness tests last: under mutation testing the quick exact ones above kill most
// mutants first (a run stops at a mutant's first failing test).
describe('encodeChunked without safe boundaries', () => {
  // No newline before a non-space and no space between letters for 16k characters: the chunks
  // must still be cut where tiktoken's pre-tokenizer cuts, or a token spans the cut.
  const minified = JSON.stringify(
    Array.from({ length: 3000 }, (_, index) => ({ k: `v${index}`, blob: 'QUFBQUFB'.repeat(index % 5) })),
  );
  // Runs longer than a limited window (4,000 characters for 500 tokens), kept short enough for
  // the reference: tiktoken itself is quadratic in them.
  const longRun = `${'A'.repeat(6000)}${'b'.repeat(30)}${' '.repeat(6000)}/${'日本語'.repeat(2500)}`;

  it('counts minified JSON and runs longer than a chunk exactly, from the start and from the end', async () => {
    expect(minified.length).toBeGreaterThan(2 * chunkChars);
    for (const text of [minified, longRun]) {
      const whole = [...encoder.encode_ordinary(text)];
      const head = await encodeChunked(text, encodePiece, { keepTokens: true });
      expect([...head.tokens]).toEqual(whole);
      const tail = await encodeChunked(text, encodePiece, { fromEnd: true, keepTokens: true });
      expect([...tail.tokens]).toEqual(whole);
      const limited = await encodeChunked(text, encodePiece, {
        fromEnd: true,
        limitTokens: 500,
        keepTokens: true,
      });
      expect(limited.complete).toBe(false);
      expect([...limited.tokens]).toEqual([...encoder.encode_ordinary(text.slice(limited.start))]);
    }
  });

  it('from the end, cuts base64 at its digits and letters, walking no piece and never from its start', async () => {
    // 300 KB of base64: no newline, no space, but a digit next to a letter every few characters.
    const base64 = Buffer.from(
      Array.from({ length: 225_000 }, (_, index) => (index * 2654435761) & 255),
    ).toString('base64');
    let scanned = 0;
    class CountingScanner extends PieceScanner {
      override pieceEnd(text: string, at: number, limit?: number) {
        scanned++;
        return super.pieceEnd(text, at, limit);
      }
    }
    const counting: PieceEncoder = { ...encodePiece, scanner: new CountingScanner('o200k_base') };
    for (const limitTokens of [60_000, 80_000]) {
      const tail = await encodeChunked(base64, counting, { fromEnd: true, limitTokens, keepTokens: true });
      expect(tail.standalone).toBeUndefined();
      expect([...tail.tokens]).toEqual([...encoder.encode_ordinary(base64.slice(tail.start))]);
      expect(base64.length - tail.start).toBeGreaterThan(3 * chunkChars);
    }
    expect(scanned).toBe(0);
  });

  it('goes on from where a limited count stopped, token for token as one count to the higher limit', async () => {
    for (const text of [minified, longRun]) {
      const first = await encodeChunked(text, encodePiece, { limitTokens: 300, keepTokens: true });
      expect(first.complete).toBe(false);
      const seen: string[] = [];
      const resumed = await encodeChunked(text, pieceEncoder(seen), {
        limitTokens: 2000,
        keepTokens: true,
        resume: first,
      });
      // Nothing before the first count's end is encoded again (long runs go to bytePairEncode,
      // not to tiktoken: what tiktoken is given is at most the stretch between the two ends).
      expect(seen.join('').length).toBeLessThanOrEqual(resumed.end - first.end);
      expect(resumed.start).toBe(0);
      expect([...resumed.tokens]).toEqual([...encoder.encode_ordinary(text.slice(0, resumed.end))]);
      const direct = await encodeChunked(text, encodePiece, { limitTokens: 2000, keepTokens: true });
      expect(resumed.count).toBe(resumed.tokens.length);
      expect(resumed.count).toBeGreaterThan(2000);
      expect([...resumed.tokens].slice(0, 2001)).toEqual([...direct.tokens].slice(0, 2001));
    }
  });
});

describe('encodeChunked', () => {
  it('property: a count gone on from an earlier limited one equals the text’s own encoding, whatever the limits', async () => {
    // Mixed lines (code, paths after newlines, whitespace runs, CJK, emoji, special-token text).
    const text = mixedText(40_000);
    const whole = [...encoder.encode_ordinary(text)];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 3000 }),
        fc.integer({ min: 1, max: 6000 }),
        async (first, more) => {
          const earlier = await encodeChunked(text, encodePiece, { limitTokens: first, keepTokens: true });
          const resumed = await encodeChunked(text, encodePiece, {
            limitTokens: first + more,
            keepTokens: true,
            resume: earlier,
          });
          expect(resumed.count).toBeGreaterThan(first + more);
          expect([...resumed.tokens]).toEqual(whole.slice(0, resumed.tokens.length));
          expect(encoder.encode_ordinary(text.slice(0, resumed.end)).length).toBe(resumed.count);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('counts exactly what one encode_ordinary call counts, on 1 MB of mixed code, prose, CJK, emoji and paths', async () => {
    const text = mixedText(1_000_000);
    const chunked = await encodeChunked(text, encodePiece, { keepTokens: true });
    const whole = encoder.encode_ordinary(text);
    expect(chunked.complete).toBe(true);
    expect(chunked.count).toBe(whole.length);
    expect(chunked.tokens).toEqual(whole);
  });

  it('yields to the event loop between chunks', async () => {
    const text = mixedText(40 * chunkChars);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    await encodeChunked(text, encodePiece);
    clearInterval(timer);
    expect(ticks).toBeGreaterThan(0);
  });

  it('stops soon after the limit, from the start or from the end, so the cost follows the limit', async () => {
    const text = mixedText(2_000_000);
    const head = await encodeChunked(text, encodePiece, { limitTokens: 1000, keepTokens: true });
    expect(head.complete).toBe(false);
    expect(head.start).toBe(0);
    expect(head.count).toBeGreaterThan(1000);
    expect(head.end).toBeLessThanOrEqual(2 * chunkChars);
    expect(head.tokens).toEqual(encoder.encode_ordinary(text.slice(0, head.end)));
    const tail = await encodeChunked(text, encodePiece, {
      limitTokens: 1000,
      fromEnd: true,
      keepTokens: true,
    });
    expect(tail.end).toBe(text.length);
    expect(text.length - tail.start).toBeLessThanOrEqual(2 * chunkChars);
    expect(tail.tokens).toEqual(encoder.encode_ordinary(text.slice(tail.start)));
  });
});
