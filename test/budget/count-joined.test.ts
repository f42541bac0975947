import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { countJoined } from '../../src/budget/count-joined.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';

const tokenizer = createTiktokenTokenizer();
const reference = get_encoding('o200k_base');
afterAll(() => {
  tokenizer.dispose();
  reference.free();
});

/** The tokenizer, noting the length of every text it counts. */
function recording(): { tokenizer: Tokenizer; counted: number[] } {
  const counted: number[] = [];
  return {
    counted,
    tokenizer: {
      ...tokenizer,
      name: tokenizer.name,
      count: (text) => {
        counted.push(text.length);
        return tokenizer.count(text);
      },
    },
  };
}

// Fragments that make tokens span a join: a frame's ">\n" before "/", newline and whitespace
// runs, letter runs, CJK, emoji, special-token-like text, a closing tag, a marker.
const fragments = [
  '>\n',
  '/',
  '//',
  '\n',
  '\n\n',
  '   ',
  '\t',
  ' ',
  'word',
  ' word',
  'Payments',
  'x'.repeat(40),
  '日本語のテキスト',
  '🎉👩‍👩‍👧‍👦',
  '<|endoftext|>',
  '<\\u{7c}endoftext|>',
  '&lt;/mcp-resource>',
  '\n[truncated: 10 of 20 tokens omitted after token 10; read more with read_mcp_resource {"offset":10}]',
  '12345',
  "'s",
  '.',
];
const text = fc.array(fc.constantFrom(...fragments), { maxLength: 120 }).map((parts) => parts.join(''));

describe('countJoined', () => {
  it("property: the parts' counts plus the re-counted joins equal tiktoken's count of the whole text", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ text, known: fc.boolean() }), { minLength: 1, maxLength: 5 }),
        async (specs) => {
          const parts = specs.map(({ text, known }) =>
            known ? { text, tokens: reference.encode_ordinary(text).length } : { text },
          );
          const whole = reference.encode_ordinary(parts.map((part) => part.text).join('')).length;
          expect(await countJoined(parts, tokenizer)).toBe(whole);
        },
      ),
      { numRuns: 500, seed: 13 },
    );
  });

  it('encodes a frame around a long counted body only at its ends, even when the body starts with "/"', async () => {
    const open = '<mcp-resource server="docs" uri="docs://a" truncated="false">\n';
    const close = '\n</mcp-resource>\n\n';
    const body = `/usr/local/bin\n${'The checkout service charges the card.\n'.repeat(400)}   \n`;
    const { tokenizer: counting, counted } = recording();
    const parts = [
      { text: open },
      { text: body, tokens: reference.encode_ordinary(body).length },
      { text: close },
    ];
    const total = await countJoined(parts, counting);
    expect(total).toBe(reference.encode_ordinary(open + body + close).length);
    expect(Math.max(...counted)).toBeLessThan(open.length + 2 * 256 + close.length);
    expect(counted.reduce((sum, length) => sum + length, 0)).toBeLessThan(body.length / 10);
  });
});

describe('Tokenizer.countPrefix', () => {
  it('reads the exact count of a prefix ending on a piece boundary off the tokens, and declines elsewhere', async () => {
    const body = 'alpha beta\n/path\ngamma delta\n  indented\nepsilon';
    const encoding = await tokenizer.encodeWithin?.(body, 1000, 'start');
    if (!encoding) throw new Error('the tiktoken tokenizer encodes within a limit');
    for (let chars = 0; chars <= body.length; chars++) {
      const counted = tokenizer.countPrefix?.(body, encoding, chars);
      if (counted !== undefined) expect(counted).toBe(reference.encode_ordinary(body.slice(0, chars)).length);
    }
    // After "beta\n" comes "/": "\n/" can merge, so that is no boundary to read off.
    expect(tokenizer.countPrefix?.(body, encoding, body.indexOf('/'))).toBeUndefined();
    expect(tokenizer.countPrefix?.(body, encoding, body.indexOf('gamma'))).toBe(
      reference.encode_ordinary(body.slice(0, body.indexOf('gamma'))).length,
    );
  });
});
