import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TokenizerEncoding } from '../../src/budget/encoding-for-model.js';
import { preTokenizePattern } from '../../src/budget/pre-tokenize-pattern.js';
import { longRunChars, PieceScanner } from '../../src/budget/scan-pieces.js';
import { fuzzParameters } from '../support/fuzz-parameters.js';
import { preTokenizerAtoms } from '../support/pre-tokenizer-atoms.js';

const encodings: TokenizerEncoding[] = ['o200k_base', 'cl100k_base'];

/** The regex's pieces of a text (short texts only: the reference backtracks). */
function regexPieces(encoding: TokenizerEncoding, text: string): string[] {
  const pattern = preTokenizePattern(encoding);
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    pattern.lastIndex = at;
    const piece = pattern.exec(text)?.[0] ?? '';
    if (piece === '') throw new Error(`no piece at ${at}`);
    pieces.push(piece);
    at += piece.length;
  }
  return pieces;
}

function scannedPieces(encoding: TokenizerEncoding, text: string): string[] {
  const scanner = new PieceScanner(encoding);
  const pieces: string[] = [];
  for (let at = 0; at < text.length; ) {
    const end = scanner.pieceEnd(text, at);
    expect(end).toBeGreaterThan(at);
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}

// Where the regex backtracks or reads ahead: runs of upper-case and other letters that a lower-case
// letter may end, whitespace that a newline may end, letters before a contraction.
const backtracking = [
  'A',
  'ǅ',
  'ʰ',
  '世',
  '\u0301',
  'a',
  ' ',
  '\n',
  '\t',
  "'",
  'l',
  'L',
  'e',
  'r',
  '!',
  '/',
  '1',
  '🎉',
  '𝐀',
  '𝐚',
  '𠀀',
];

describe('PieceScanner', () => {
  it.each(encodings)('cuts every text into the pieces the pre-tokenizer regex cuts (%s)', (encoding) => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...preTokenizerAtoms), fc.constantFrom(...backtracking)), {
          maxLength: 60,
        }),
        (parts) => {
          const text = parts.join('');
          expect(scannedPieces(encoding, text)).toEqual(regexPieces(encoding, text));
        },
      ),
      fuzzParameters(1500),
    );
  });

  it.each(encodings)(
    'a piece it calls certain in a prefix is the whole text’s piece there (%s)',
    (encoding) => {
      fc.assert(
        fc.property(
          fc.array(fc.constantFrom(...backtracking, ...preTokenizerAtoms.slice(0, 40)), {
            minLength: 1,
            maxLength: 50,
          }),
          fc.nat(),
          (parts, cut) => {
            const text = parts.join('');
            const limit = 1 + (cut % text.length);
            const whole = regexPieces(encoding, text);
            const prefix = regexPieces(encoding, text.slice(0, limit));
            const scanner = new PieceScanner(encoding);
            let at = 0;
            let index = 0;
            while (at < limit) {
              const end = scanner.pieceEnd(text, at, limit);
              // Within the prefix, the pieces are the prefix's own, certain or not.
              expect(text.slice(at, end)).toBe(prefix[index]);
              if (!scanner.certain) break;
              expect(text.slice(at, end)).toBe(whole[index]);
              at = end;
              index++;
            }
          },
        ),
        fuzzParameters(1500),
      );
    },
  );

  it('scans megabytes of one letter, CJK, emoji, punctuation and whitespace as one piece each, in linear time', () => {
    const scanner = new PieceScanner('o200k_base');
    for (const run of ['a', 'A', '世', '🎉', '!', ' ', '\n', 'a\u0301']) {
      const text = run.repeat(Math.ceil(6_000_000 / run.length));
      const started = performance.now();
      expect(scanner.pieceEnd(text, 0)).toBe(text.length);
      expect(performance.now() - started).toBeLessThan(2000);
    }
  });

  it('cuts a long run whose first piece is short (the regex looked to its end for it) in one scan', () => {
    // "A世" then capitals: A* takes the whole run, B+ takes back to the 世; the next piece starts
    // inside the same run, whose end and last 世 the scanner remembers.
    const text = `A世${'A'.repeat(3_000_000)}`;
    const scanner = new PieceScanner('o200k_base');
    const started = performance.now();
    expect(scanner.pieceEnd(text, 0)).toBe(2);
    expect(scanner.pieceEnd(text, 2)).toBe(text.length);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('tells text with a run longer than longRunChars from text without one', () => {
    expect(PieceScanner.hasLongRun('word '.repeat(10_000))).toBe(false);
    expect(PieceScanner.hasLongRun('QUJD1234+/'.repeat(1000))).toBe(false);
    for (const run of ['a', '世', '🎉', '!', ' ', '\n/'])
      expect(PieceScanner.hasLongRun(`x ${run.repeat(longRunChars + 1)} y`)).toBe(true);
    expect(PieceScanner.hasLongRun(`x ${'a'.repeat(longRunChars)} y`)).toBe(false);
  });
});
