import { get_encoding } from 'tiktoken';
import { describe, expect, it, vi } from 'vitest';
import {
  firstHardBoundary,
  firstSafeBoundary,
  isSafeBoundary,
  isSafeJoin,
  lastHardBoundary,
  lastSafeBoundary,
} from '../../src/budget/find-safe-boundary.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';

// Safe boundaries of this text (15 characters): 0, 3 (after "\n", before "c"), 5 (" ef"), 12
// (" ij") and 15; 9 is not one ("\n" followed by a space), nor is any other index.
const text = 'ab\ncd ef\n gh ij';

describe('isSafeBoundary', () => {
  it('is true at the ends, after a newline before a non-space, and before a space between a letter or digit and a letter', () => {
    const safe = Array.from({ length: text.length + 1 }, (_, index) => index).filter((index) =>
      isSafeBoundary(text, index),
    );
    expect(safe).toEqual([0, 3, 5, 12, 15]);
    expect(isSafeBoundary(' a', 0)).toBe(true);
    expect(isSafeBoundary('1 a', 1)).toBe(true);
    expect(isSafeBoundary('a 1', 1)).toBe(false);
    expect(isSafeBoundary('. a', 1)).toBe(false);
    expect(isSafeBoundary('a a', 2)).toBe(false);
    expect(isSafeBoundary('\n\ta', 1)).toBe(false);
    expect(isSafeBoundary('\n/a', 1)).toBe(false);
    expect(isSafeBoundary('\n.a', 1)).toBe(true);
  });
});

describe('isSafeBoundary against tiktoken', () => {
  it('a newline after punctuation is one before indentation (a brace, a marker), not after a letter or a mark', () => {
    expect(isSafeBoundary('{\n  x', 2)).toBe(true);
    expect(isSafeBoundary(')]\n\tx', 3)).toBe(true);
    expect(isSafeBoundary('😀\n x', 3)).toBe(true);
    // A letter piece ends before the newline, whose run may take the spaces and a newline after.
    expect(isSafeBoundary('a\n  x', 2)).toBe(false);
    // A mark may end a letter piece (`.\u0301` is one): the same.
    expect(isSafeBoundary('.\u0301\n  x', 3)).toBe(false);
    // A letter outside the BMP is read whole, not as a lone surrogate (punctuation).
    expect(isSafeBoundary('𝒜\n x', 3)).toBe(false);
    // Punctuation pieces take more newlines (and in o200k a slash).
    expect(isSafeBoundary('{\n\n x', 2)).toBe(false);
    expect(isSafeBoundary('{\n\r x', 2)).toBe(false);
  });

  it('after a newline before indentation: safe after punctuation only, as tiktoken splits it', () => {
    const encoding = get_encoding('o200k_base');
    try {
      const splitsAsWhole = (text: string, at: number) =>
        [
          ...encoding.encode_ordinary(text.slice(0, at)),
          ...encoding.encode_ordinary(text.slice(at)),
        ].join() === [...encoding.encode_ordinary(text)].join();
      for (const tail of [' \n', '  \nx', ' x']) {
        // A letter, a digit, whitespace or a mark before the newline: its run may take what follows.
        for (const before of ['a', '1', ' ', '\t', '\u0301']) {
          const text = `${before}\n${tail}`;
          expect([text, isSafeBoundary(text, before.length + 1)]).toEqual([text, false]);
          // And it does, where the BPE tokens differ too (a tab's run happens to merge the same).
          if (tail !== ' x' && before !== '\t')
            expect([text, splitsAsWhole(text, before.length + 1)]).toEqual([text, false]);
        }
        // Punctuation (an emoji is punctuation to the pattern): its piece took the newline.
        for (const before of ['{', ']', '😀']) {
          const text = `${before}\n${tail}`;
          expect([text, isSafeBoundary(text, before.length + 1)]).toEqual([text, true]);
          expect([text, splitsAsWhole(text, before.length + 1)]).toEqual([text, true]);
        }
      }
    } finally {
      encoding.free();
    }
  });

  it('every safe boundary of random texts splits them into the pieces the whole has (o200k and cl100k)', () => {
    const alphabet = [
      'a',
      'Bc',
      '1',
      ' ',
      '  ',
      '\n',
      '\r',
      '/',
      '\t',
      '.',
      '{',
      ']',
      '日',
      '\u0301',
      "'s",
      '😀',
      '𝒜',
    ];
    let seed = 11;
    const next = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    for (const name of ['o200k_base', 'cl100k_base'] as const) {
      const encoding = get_encoding(name);
      try {
        const encode = (value: string) => Array.from(encoding.encode_ordinary(value));
        let boundaries = 0;
        let beforeIndentation = 0;
        for (let run = 0; run < 4000; run++) {
          const value = Array.from({ length: 2 + next(14) }, () => alphabet[next(alphabet.length)]).join('');
          const whole = encode(value);
          for (let index = 1; index < value.length; index++) {
            if (!isSafeBoundary(value, index)) continue;
            boundaries++;
            if (value[index - 1] === '\n' && /\s/.test(value[index] ?? '')) beforeIndentation++;
            expect([
              name,
              value,
              index,
              [...encode(value.slice(0, index)), ...encode(value.slice(index))],
            ]).toEqual([name, value, index, whole]);
          }
        }
        // Boundaries of every kind, the one before indentation among them.
        expect(boundaries).toBeGreaterThan(1000);
        expect(beforeIndentation).toBeGreaterThan(50);
      } finally {
        encoding.free();
      }
    }
  });
});

describe('isSafeJoin', () => {
  it('is isSafeBoundary at the join of the two texts joined, for random texts', () => {
    const alphabet = ['a', '1', ' ', '\n', '\r', '/', '\t', '.', '{', '\u0301', '😀', '𝒜'];
    let seed = 5;
    // The generator's high bits: its low ones repeat with a short period.
    const next = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return Math.floor(seed / 2 ** 16) % below;
    };
    const piece = (least: number) => {
      let value = '';
      while (value.length < least || next(3) === 0) value += alphabet[next(alphabet.length)];
      return value;
    };
    let safe = 0;
    for (let run = 0; run < 5000; run++) {
      const left = piece(3);
      const right = piece(2);
      const joined = isSafeBoundary(left + right, left.length);
      if (joined) safe++;
      expect([left, right, isSafeJoin(left, right)]).toEqual([left, right, joined]);
    }
    expect(safe).toBeGreaterThan(200);
  });
});

describe('isSafeBoundary in a fresh copy of the module', () => {
  it('tells whitespace, letters and digits apart with the patterns built when the module loads', async () => {
    vi.resetModules();
    const fresh = await import('../../src/budget/find-safe-boundary.js');
    // After a newline: a non-space starts a piece, a tab or space does not.
    expect(fresh.isSafeBoundary('\n.a', 1)).toBe(true);
    expect(fresh.isSafeBoundary('\n\ta', 1)).toBe(false);
    // Before a space: a letter or digit before it and a letter after it.
    expect(fresh.isSafeBoundary('a b', 1)).toBe(true);
    expect(fresh.isSafeBoundary('1 b', 1)).toBe(true);
    expect(fresh.isSafeBoundary('日 本', 1)).toBe(true);
    expect(fresh.isSafeBoundary('. a', 1)).toBe(false);
    expect(fresh.isSafeBoundary('a 1', 1)).toBe(false);
    expect(fresh.isSafeBoundary('a .', 1)).toBe(false);
  });
});

describe('lastSafeBoundary', () => {
  it('the last one in (from, to], a newline boundary before any later space boundary; -1 when none', () => {
    expect(lastSafeBoundary(text, 0, 14)).toBe(3);
    expect(lastSafeBoundary(text, 0, 3)).toBe(3);
    expect(lastSafeBoundary(text, 3, 14)).toBe(12);
    expect(lastSafeBoundary(text, 4, 11)).toBe(5);
    expect(lastSafeBoundary(text, 5, 11)).toBe(-1);
    expect(lastSafeBoundary(text, 0, 2)).toBe(-1);
    expect(lastSafeBoundary(text, 0, 15)).toBe(15);
    expect(lastSafeBoundary(text, 14, 20)).toBe(15);
  });

  it('ends when the text starts with a newline that is no boundary', () => {
    expect(lastSafeBoundary('\n ab', 0, 3)).toBe(-1);
    expect(lastSafeBoundary('\nab cd', 0, 4)).toBe(1);
  });
});

describe('firstSafeBoundary', () => {
  it('the first one in [from, to), a newline boundary before any earlier space boundary; -1 when none', () => {
    expect(firstSafeBoundary(text, 1, 15)).toBe(3);
    expect(firstSafeBoundary(text, 3, 15)).toBe(3);
    expect(firstSafeBoundary(text, 4, 15)).toBe(5);
    expect(firstSafeBoundary(text, 6, 13)).toBe(12);
    expect(firstSafeBoundary(text, 6, 12)).toBe(-1);
    expect(firstSafeBoundary(text, 1, 3)).toBe(-1);
    expect(firstSafeBoundary(text, 0, 2)).toBe(0);
    expect(firstSafeBoundary(text, -5, 2)).toBe(0);
  });

  it('prefers a later newline boundary to a space boundary at from itself, and takes a space at index 1', () => {
    // The space at 2 is a boundary, but the newline boundary at 6 comes first by preference.
    expect(firstSafeBoundary('ab cd\nef', 2, 8)).toBe(6);
    expect(firstSafeBoundary('a b', 1, 3)).toBe(1);
  });

  it("finds a newline boundary on the text's last character, and one at its end", () => {
    expect(firstSafeBoundary('ab\nc', 1, 4)).toBe(3);
    expect(firstSafeBoundary('ab\nc', 3, 9)).toBe(3);
    expect(firstSafeBoundary('ab\n', 1, 9)).toBe(3);
  });
});

describe('lastSafeBoundary and firstSafeBoundary against a scan of every index', () => {
  // The reference: every index of the window tested with isSafeBoundary, newline boundaries first.
  const isNewlineBoundary = (value: string, index: number) =>
    value[index - 1] === '\n' && isSafeBoundary(value, index);
  const isSpaceBoundary = (value: string, index: number) =>
    value[index] === ' ' && isSafeBoundary(value, index);
  const reference = (value: string, from: number, to: number, last: boolean): number => {
    const indices = Array.from({ length: value.length + 1 }, (_, index) => index).filter((index) =>
      last ? index > from && index <= to : index >= from && index < to,
    );
    if (last) indices.reverse();
    return (
      indices.find((index) => isNewlineBoundary(value, index)) ??
      indices.find((index) => isSpaceBoundary(value, index)) ??
      -1
    );
  };

  it('finds the same boundary for random texts and windows, a window never read past its ends', () => {
    const alphabet = ['a', 'b', '1', ' ', '\n', '/', '\t', '.', '日'];
    let seed = 7;
    const next = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    for (let run = 0; run < 3000; run++) {
      const value = Array.from({ length: 1 + next(24) }, () => alphabet[next(alphabet.length)]).join('');
      const from = next(value.length + 1);
      const to = Math.min(value.length - 1, from + next(value.length + 1));
      if (to < value.length && to > from) {
        expect([value, from, to, lastSafeBoundary(value, from, to)]).toEqual([
          value,
          from,
          to,
          reference(value, from, to, true),
        ]);
      }
      if (from > 0 && to > from) {
        expect([value, from, to, firstSafeBoundary(value, from, to)]).toEqual([
          value,
          from,
          to,
          reference(value, from, to, false),
        ]);
      }
    }
  });
});

describe('hard boundaries (texts without safe ones)', () => {
  it('before a number, a whitespace run of two or more is no boundary: counted in parts cut there, the run splits otherwise', async () => {
    const reference = get_encoding('o200k_base');
    try {
      const count = (part: string) => reference.encode_ordinary(part).length;
      for (const [sample, at] of [
        ['a  15', 3],
        ['x:\n  7', 5],
        ['ab\t\t9', 4],
      ] as const) {
        // Cut before the number, the halves count one token less than the whole.
        expect(count(sample.slice(0, at)) + count(sample.slice(at)), sample).toBe(count(sample) - 1);
        expect(lastHardBoundary(sample, 0, at), sample).not.toBe(at);
        expect(firstHardBoundary(sample, at, sample.length), sample).not.toBe(at);
      }
      // One whitespace character on its own still is one, and so is a number before whitespace.
      expect(lastHardBoundary('a 15', 0, 2)).toBe(2);
      expect(lastHardBoundary('15  a', 0, 2)).toBe(2);
      // Through the chunked counter: minified text with such runs and no safe boundary, exact.
      const tokenizer = createTiktokenTokenizer();
      try {
        for (const unit of ['x,  15', '[  12,  34]', 'ab\t\t9']) {
          const long = unit.repeat(20_000);
          expect(await tokenizer.count(long), unit).toBe(count(long));
        }
      } finally {
        tokenizer.dispose();
      }
    } finally {
      reference.free();
    }
  });
});
