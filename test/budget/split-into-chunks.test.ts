import { describe, expect, it } from 'vitest';
import { splitIntoChunks } from '../../src/budget/truncate/split-into-chunks.js';

const bounds = (text: string) => splitIntoChunks(text).map((chunk) => [chunk.start, chunk.end]);

describe('splitIntoChunks', () => {
  it('covers the text exactly, in order, and cuts a very long line', () => {
    const text = `${'word '.repeat(1000)}\nshort\n\n${'line of text\n'.repeat(100)}`;
    const chunks = splitIntoChunks(text);
    expect(chunks[0]?.start).toBe(0);
    expect(chunks.at(-1)?.end).toBe(text.length);
    for (const [index, chunk] of chunks.entries()) {
      if (index > 0) expect(chunk.start).toBe(chunks[index - 1]?.end);
      expect(chunk.end - chunk.start).toBeLessThanOrEqual(1_200);
    }
  });

  it('without blank lines, a chunk ends at the first line end at or past 640 characters', () => {
    expect(bounds(`${'x'.repeat(79)}\n`.repeat(20))).toEqual([
      [0, 640],
      [640, 1280],
      [1280, 1600],
    ]);
  });

  it('a paragraph ends a chunk, with the blank lines after it, when the chunk holds a third of the target (214 characters) or more', () => {
    const text = `${'a'.repeat(49)}\n\n${'b'.repeat(199)}\n\n\n${'c'.repeat(30)}\n\n${'e'.repeat(200)}\n`;
    expect(bounds(text)).toEqual([
      [0, 253],
      [253, 486],
    ]);
  });

  it('what is left after the last chunk is a chunk; empty text has none', () => {
    expect(bounds('abc')).toEqual([[0, 3]]);
    expect(bounds('')).toEqual([]);
  });

  it('a line over 1,200 characters closes the chunk before it and is cut on its own', () => {
    expect(bounds(`short\n${'x'.repeat(1300)}`)).toEqual([
      [0, 6],
      [6, 1206],
      [1206, 1306],
    ]);
  });

  it('a line of exactly 1,200 characters is not cut', () => {
    expect(bounds(`${'abcd '.repeat(239)}abcd\n`)).toEqual([[0, 1200]]);
  });

  it('a long line is cut after its last space when that lies past the middle of the 1,200, else hard', () => {
    expect(bounds(`${'x'.repeat(900)} ${'x'.repeat(1000)}`)).toEqual([
      [0, 901],
      [901, 1901],
    ]);
    expect(bounds(`${'x'.repeat(600)} ${'x'.repeat(1000)}`)).toEqual([
      [0, 1200],
      [1200, 1601],
    ]);
  });

  it('a hard cut never splits a surrogate pair', () => {
    const before = 'x'.repeat(1199);
    const after = 'x'.repeat(100);
    // A high surrogate (U+D83D, and the ends of its range U+D800 and U+DBFF) at the cut: the pair stays whole.
    for (const pair of ['\ud83d\ude00', '\ud800\udc00', '\udbff\udfff']) {
      expect(bounds(`${before}${pair}${after}`)).toEqual([
        [0, 1201],
        [1201, 1301],
      ]);
    }
    // The cut falls after a whole pair, or after a character past the surrogates (U+FF58).
    expect(bounds(`${'x'.repeat(1198)}\ud83d\ude00${after}`)).toEqual([
      [0, 1200],
      [1200, 1300],
    ]);
    expect(bounds(`${before}\uff58${after}`)).toEqual([
      [0, 1200],
      [1200, 1300],
    ]);
  });
});

describe('splitIntoChunks on megabytes without a newline or a space', () => {
  it.each([
    ['one letter', 'a'],
    ['tabs', '\t'],
    ['CJK', '漢'],
  ])('cuts 4 million characters of %s into 1,200-character chunks in linear time', (_, unit) => {
    // Found by the any-content property: each chunk searched for the next newline to the text's
    // end and for the last space back to its start: 4 MB took 8 s here, 3 MB 30 s in a loaded turn.
    const text = unit.repeat(4_000_000);
    const started = performance.now();
    const chunks = splitIntoChunks(text);
    const elapsed = performance.now() - started;
    expect(chunks).toHaveLength(3334);
    expect(chunks.slice(0, 2)).toEqual([
      { start: 0, end: 1200 },
      { start: 1200, end: 2400 },
    ]);
    // Linear: tens of milliseconds here; the quadratic search took tens of seconds.
    expect(elapsed).toBeLessThan(2_000);
  });
});
