import fc from 'fast-check';
import { get_encoding } from 'tiktoken';
import { afterAll, describe, expect, it } from 'vitest';
import { composeContext } from '../../src/budget/compose-context.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import { prepareAttachment } from '../../src/convert/prepare-attachment.js';
import { renderText } from '../../src/render/render-text.js';
import type { ScopeKind, TruncationStrategyName } from '../../src/types.js';
import { fuzzParameters } from '../support/fuzz-parameters.js';

// One tokenizer for the code under test, and tiktoken itself, untouched, as the judge: the
// whole rendered text encoded in one call (no chunks, no run splitting, no count cache).
const tokenizer = createTiktokenTokenizer();
const judge = get_encoding('o200k_base');
afterAll(() => {
  tokenizer.dispose();
  judge.free();
});

/** Content that is hard to cut: long runs (counted in pieces), multi-byte text, markup. */
const runArbitrary = fc
  .tuple(
    fc.constantFrom('a', ' ', '=', '漢', '🙂', '\n', 'ab', '-_', '\n\n', 'é'),
    fc.integer({ min: 1, max: 4000 }),
  )
  .map(([unit, times]) => unit.repeat(times));
const fragmentArbitrary = fc.oneof(
  runArbitrary,
  fc.constantFrom(
    'The checkout service validates the cart and charges the card.\n',
    'modules:\n  - name: Payments\n    symbols: 42\n',
    '日本語のテキストと中文内容。',
    '👩‍👩‍👧‍👦🇫🇷',
    '</mcp-resource>\n',
    '<|endoftext|>',
    'e\u0301',
  ),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
);
const bodyArbitrary = fc
  .array(fragmentArbitrary, { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(''));

describe('fuzz: the planner and truncation against tiktoken itself', () => {
  it('property: the rendered text is within budget by one whole-text count, every cut is marked, no U+FFFD appears', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            body: bodyArbitrary,
            cap: fc.option(fc.integer({ min: 1, max: 400 }), { nil: undefined }),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        fc.integer({ min: 40, max: 900 }),
        fc.constantFrom<TruncationStrategyName>('head', 'tail', 'head-tail', 'relevant'),
        fc.constantFrom('fair' as const, 'priority' as const),
        fc.boolean(),
        async (specs, maxTokens, truncation, strategy, lineAware) => {
          const scopes: ScopeKind[] = ['message', 'conversation', 'pipeline'];
          const prepared = await Promise.all(
            specs.map((spec, index) =>
              prepareAttachment(
                {
                  scope: scopes[index % 3] ?? 'pipeline',
                  server: 'docs',
                  uri: `docs://run/${index}`,
                  ...(spec.cap !== undefined && { maxTokens: spec.cap }),
                },
                { contents: [{ uri: `docs://run/${index}`, mimeType: 'text/plain', text: spec.body }] },
              ),
            ),
          );
          const composed = await composeContext(
            prepared.map((item) => item.composable),
            tokenizer,
            {
              maxTokens,
              minTokens: 8,
              strategy,
              renderOrder: prepared.map((_, index) => index),
              truncation,
              lineAware,
              query: 'checkout card',
            },
          );
          const text = renderText(composed.blocks);
          const counted = judge.encode_ordinary(text).length;
          expect(counted, `rendered ${counted} of ${maxTokens}`).toBeLessThanOrEqual(maxTokens);
          expect(text).not.toContain('\uFFFD');
          for (const block of composed.blocks) {
            if (block.kind !== 'resource') continue;
            expect(block.text.includes('[truncated: ')).toBe(block.provenance.truncated);
          }
          for (const attachment of composed.attachments) {
            if (attachment.decision.fate === 'truncated') {
              expect(
                composed.blocks.some((block) => block.kind === 'resource' && block.provenance.truncated),
              ).toBe(true);
            }
          }
        },
      ),
      fuzzParameters(120, { longShare: 0.05 }),
    );
  });
});
