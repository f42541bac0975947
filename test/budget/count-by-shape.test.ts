import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { countByShape } from '../../src/budget/count-by-shape.js';
import { countJoined } from '../../src/budget/count-joined.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
import { truncationMarker } from '../../src/budget/truncation-marker.js';

const tokenizer = createTiktokenTokenizer();
const reference = get_encoding('o200k_base');
afterAll(() => {
  tokenizer.dispose();
  reference.free();
});

/** The tokenizer, noting every text it counts (at once or not). */
function recording(): { tokenizer: Tokenizer; counted: string[] } {
  const counted: string[] = [];
  return {
    counted,
    tokenizer: {
      name: tokenizer.name,
      piecewise: true,
      encode: (text) => tokenizer.encode(text),
      decode: (tokens) => tokenizer.decode(tokens),
      count: (text) => {
        counted.push(text);
        return tokenizer.count(text);
      },
      countShort: (text) => {
        counted.push(text);
        return tokenizer.countShort?.(text);
      },
      dispose: () => {},
    },
  };
}

// Numbers next to what a piece could take with them: spaces (one, two, a newline and a space),
// punctuation, letters, an en dash, a newline run; digits outside ASCII; a marker.
const fragments = [
  '7',
  '123456',
  ' 42',
  '  9',
  '\n 3',
  '\r\n',
  '\n\n',
  '\t',
  ' ',
  '–',
  '~',
  ':',
  'word',
  ' Word',
  "'s",
  '𝟙𝟚',
  '٣',
  '日本',
  '\u0000',
  '"offset":15}]\n',
  truncationMarker({
    server: 's',
    uri: 'x://a/1',
    originalTokens: 8123,
    range: { startToken: 15, endToken: 226 },
  }),
];
const text = fc.array(fc.constantFrom(...fragments), { maxLength: 60 }).map((parts) => parts.join(''));

describe('countByShape', () => {
  it("property: a text's count by its shape is tiktoken's count of the text", async () => {
    fc.assert(
      fc.property(text, (sample) => {
        const counted = countByShape(sample, tokenizer);
        if (sample.length < 1024) expect(counted).toBe(reference.encode_ordinary(sample).length);
      }),
      { numRuns: 1000, seed: 7 },
    );
  });

  it('counts a marker with offsets of its own without counting its words again: only numbers it has not met', async () => {
    const { tokenizer: counting, counted } = recording();
    const marker = (startToken: number, endToken: number) =>
      truncationMarker({
        server: 'docs',
        uri: 'docs://guide',
        originalTokens: 9000,
        range: { startToken, endToken },
      });
    const run = 'The checkout service charges the card.\n';
    const parts = (startToken: number, endToken: number) => [
      { text: run, tokens: reference.encode_ordinary(run).length },
      { text: marker(startToken, endToken) },
      { text: run, tokens: reference.encode_ordinary(run).length },
    ];
    const first = parts(120, 480);
    expect(await countJoined(first, counting)).toBe(
      reference.encode_ordinary(first.map((part) => part.text).join('')).length,
    );
    counted.length = 0;
    const second = parts(640, 1480);
    expect(await countJoined(second, counting)).toBe(
      reference.encode_ordinary(second.map((part) => part.text).join('')).length,
    );
    // The run's end (off its known count) and that end with the marker's newline, both recurring,
    // then the new offsets only, by their groups of three digits (640 again as the read-more
    // offset; the 0 of 1480 met in 9000): no word of the marker.
    expect(counted).toEqual([' card.\n', ' card.\n\n', '840', '640', '148']);
  });
});
