import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { chunkChars, encodeChunked } from '../../src/budget/count-tokens-chunked.js';
import { encodeGuarded, longRunChars } from '../../src/budget/encode-guarded.js';
import { isSafeBoundary } from '../../src/budget/find-safe-boundary.js';

const encoder = get_encoding('o200k_base');
afterAll(() => encoder.free());
const encodePiece = (piece: string) => encoder.encode_ordinary(piece);

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

describe('encodeChunked', () => {
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
  it('splits unbroken runs so 64 KB of one character is not quadratic, within 1 token per split', () => {
    const run = 'a'.repeat(4096);
    const exact = encoder.encode_ordinary(run).length;
    const guarded = encodeGuarded(run, encodePiece).length;
    expect(Math.abs(guarded - exact)).toBeLessThanOrEqual(run.length / longRunChars);
    // BPE is quadratic in one piece's length: what keeps 64 KB cheap is that the encoder never
    // sees a piece longer than longRunChars (the whole run in one call takes ~2.8 s).
    const pieces: number[] = [];
    const tokens = encodeGuarded('a'.repeat(65_536), (piece) => {
      pieces.push(piece.length);
      return encodePiece(piece);
    });
    expect(pieces).toEqual(Array(65_536 / longRunChars).fill(longRunChars));
    expect(tokens).toHaveLength(encodePiece('a'.repeat(longRunChars)).length * pieces.length);
  });

  it('splits a long run inside ordinary text and encodes the text around it whole', () => {
    const pieces: string[] = [];
    encodeGuarded(`head text !${'🎉'.repeat(600)} tail text`, (piece) => {
      pieces.push(piece);
      return encodePiece(piece);
    });
    // The run is "!" and 600 emoji (1201 UTF-16 units): the cut at 512 would split a surrogate
    // pair, so it moves to 513; the next falls at 1025.
    expect(pieces).toEqual([
      'head text ',
      `!${'🎉'.repeat(256)}`,
      '🎉'.repeat(256),
      '🎉'.repeat(88),
      ' tail text',
    ]);
  });

  it('leaves text without long runs exact, compact JSON included', () => {
    const json = JSON.stringify(
      Array.from({ length: 300 }, (_, index) => ({ id: index, name: `item ${index}` })),
    );
    expect(encodeGuarded(json, encodePiece)).toEqual(encoder.encode_ordinary(json));
  });
});
