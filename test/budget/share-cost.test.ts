import { afterAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { type BoundaryLessKind, boundaryLessText } from '../../fixtures/boundary-less-text.js';
import { OrdinaryEncoder } from '../../src/budget/encode-ordinary.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';

const tokenizer = createTiktokenTokenizer();
afterAll(() => tokenizer.dispose());

/** Characters handed to the encoder (tiktoken's encode_ordinary in JavaScript) while `work` runs. */
async function charactersEncoded(work: () => Promise<unknown>): Promise<number> {
  const encode = vi.spyOn(OrdinaryEncoder.prototype, 'encode');
  onTestFinished(() => encode.mockRestore());
  await work();
  const characters = encode.mock.calls.reduce((sum, [text]) => sum + text.length, 0);
  encode.mockRestore();
  return characters;
}

describe('the cost of counting a share follows the share, not the body', () => {
  // 2 MB: under the size at which the old pre-tokenizer regex overflowed, so the old code counted
  // it, handing the whole run to the encoder as one piece (4 MB of one letter: ~2.8 s of CPU).
  const twoMegabytes = 2 * 1024 * 1024;

  it.each<BoundaryLessKind>(['one-letter', 'base64', 'cjk', 'emoji', 'ordinary'])(
    'an 8k-token share of 2 MB of %s, from the start and from the end, encodes at most a few times what it shows',
    async (kind) => {
      const text = boundaryLessText(kind, twoMegabytes);
      for (const from of ['start', 'end'] as const) {
        let shown = 0;
        const encoded = await charactersEncoded(async () => {
          const share = await tokenizer.encodeWithin?.(text, 8000, from);
          if (!share) throw new Error('the tiktoken tokenizer encodes within a limit');
          expect(share.complete).toBe(false);
          expect(share.tokens.length).toBeGreaterThan(8000);
          shown = share.end - share.start;
        });
        // 8,000 tokens of one letter are 64,000 characters (8 a token): what the share shows,
        // read once to find the ratio and once more to the limit at most.
        expect(shown).toBeLessThan(8001 * 16);
        expect(encoded).toBeLessThanOrEqual(3 * shown + 16_384);
      }
    },
    60_000,
  );

  it.each<BoundaryLessKind>(['cjk', 'emoji'])(
    'an 8k-token share of 2 MB of %s reads about what 8k tokens hold, not a whole chunk',
    async (kind) => {
      // Two tokens a character (CJK) or one (emoji): a first look of 16,384 characters, sized at
      // ~4 characters a token, counted 31,400 tokens of CJK (16,452 of emoji) for a share of 8,000.
      const text = boundaryLessText(kind, twoMegabytes);
      for (const from of ['start', 'end'] as const) {
        let counted = 0;
        const encoded = await charactersEncoded(async () => {
          const share = await tokenizer.encodeWithin?.(text, 8000, from);
          counted = share?.tokens.length ?? 0;
        });
        expect(counted).toBeGreaterThan(8000);
        expect(counted).toBeLessThanOrEqual(1.25 * 8000);
        // A first look of at most 1,024 characters, then the share: 8,000 CJK tokens are ~4,200.
        expect(encoded).toBeLessThanOrEqual(1024 + 1.25 * (kind === 'cjk' ? 4200 : 8000));
      }
    },
    60_000,
  );
});
