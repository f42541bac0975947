import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaudeTokenizer } from '../../src/budget/claude-tokenizer.js';
import { type ComposableAttachment, composeContext } from '../../src/budget/compose-context.js';
import { createGeminiTokenizer } from '../../src/budget/gemini-tokenizer.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
import { escapeFrameContent } from '../../src/render/frame-resource.js';
import { renderText } from '../../src/render/render-text.js';
import type { TruncationStrategyName } from '../../src/types.js';

const fragments = [
  'The checkout service validates the cart, reserves stock and charges the card. ',
  'modules:\n  - name: Payments\n    symbols: 42\n',
  '日本語のテキストと中文内容。',
  'const total = items.reduce((sum, item) => sum + item.price, 0);\n',
  '\n\n',
  '    ',
  'a'.repeat(300),
  '{"id": 17, "tags": ["a", "b"]}\n',
];
const bodyArbitrary = fc
  .array(fc.constantFrom(...fragments), { minLength: 1, maxLength: 40 })
  .map((parts) => parts.join(''));

function composable(body: string, index: number): ComposableAttachment {
  const uri = `doc://family/${index}`;
  return {
    provenance: {
      scope: 'pipeline',
      server: 'docs',
      uri,
      mimeType: 'text/plain',
      sha256: index.toString(16).padStart(64, '0'),
    },
    sections: [
      { kind: 'text', uri, mimeType: 'text/plain', bytes: body.length, text: escapeFrameContent(body) },
    ],
  };
}

/**
 * Counts one token per character, plus 3 wherever a block meets the next (`>\n\n<`): tokens
 * that span the joins, as SentencePiece's may. Not piecewise.
 */
const joinMerging: Tokenizer = {
  name: 'test:join-merging',
  encode: async (text) =>
    Uint32Array.from(Array.from(text), (character) => character.codePointAt(0) as number),
  decode: (tokens) => Array.from(tokens, (code) => String.fromCodePoint(code)).join(''),
  count: async (text) => Array.from(text).length + 3 * (text.split('>\n\n<').length - 1),
  dispose: () => {},
};

let gemma: Tokenizer;
let o200k: Tokenizer;
let claude: Tokenizer;
beforeAll(async () => {
  gemma = await createGeminiTokenizer();
  o200k = createTiktokenTokenizer();
  claude = createClaudeTokenizer({ model: 'claude-opus-4-7', o200k });
}, 60_000);
afterAll(() => {
  gemma?.dispose();
  claude?.dispose();
  o200k?.dispose();
});

describe('a budget in the family’s own tokens', () => {
  it.each(['gemma', 'claude', 'join-merging'])(
    'property (%s): the whole rendering, counted by the tokenizer, is the turn’s usedTokens and within maxTokens × (1 - margin)',
    async (which) => {
      const tokenizer = which === 'gemma' ? gemma : which === 'claude' ? claude : joinMerging;
      const margin = tokenizer.margin ?? 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(bodyArbitrary, { minLength: 1, maxLength: 4 }),
          fc.integer({ min: 200, max: 3000 }),
          fc.constantFrom<TruncationStrategyName>('head', 'tail', 'head-tail'),
          async (bodies, maxTokens, truncation) => {
            const items = bodies.map(composable);
            const composed = await composeContext(items, tokenizer, {
              maxTokens,
              minTokens: 16,
              strategy: 'fair',
              renderOrder: items.map((_, index) => index),
              truncation,
              safetyMargin: margin,
            });
            const whole = await tokenizer.count(renderText(composed.blocks));
            expect(composed.usedTokens).toBe(composed.blocks.length === 0 ? 0 : whole);
            expect(whole).toBeLessThanOrEqual(Math.floor(maxTokens * (1 - margin)));
          },
        ),
        { numRuns: which === 'gemma' ? 25 : 60 },
      );
    },
    240_000,
  );
});
