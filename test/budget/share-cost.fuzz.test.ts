import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { maxTokenBytes } from '../../src/budget/byte-pair-encode.js';
import { chunkChars } from '../../src/budget/count-tokens-chunked.js';
import { OrdinaryEncoder } from '../../src/budget/encode-ordinary.js';
import { PieceScanner } from '../../src/budget/scan-pieces.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import { fuzzParameters } from '../support/fuzz-parameters.js';
import { bodyArbitrary, bodyOf, longestRunChars } from '../support/long-run-bodies.js';

// Bodies up to 6 million characters (up to 24 MB of UTF-8 for CJK, 6 MB of one letter).
const maxChars = 6_000_000;

/**
 * The work a bounded encoding does, by what it hands the encoder, not by the clock: characters
 * given to the JavaScript encoder (tiktoken's encode_ordinary; each piece in them byte-pair
 * encoded) and characters the pre-tokenizer scanned (piece ends found: the chunk walks' and the
 * encoder's own).
 */
function measureWork() {
  const encode = vi.spyOn(OrdinaryEncoder.prototype, 'encode');
  const pieceEnd = vi.spyOn(PieceScanner.prototype, 'pieceEnd');
  return {
    read() {
      const encoded = encode.mock.calls.reduce((sum, [text]) => sum + text.length, 0);
      let scanned = 0;
      pieceEnd.mock.calls.forEach(([, at], index) => {
        const result = pieceEnd.mock.results[index];
        if (result?.type === 'return') scanned += (result.value as number) - at;
      });
      encode.mockRestore();
      pieceEnd.mockRestore();
      return { encoded, scanned };
    },
  };
}

/*
 * The bound, with c = 3: a share of S tokens shows at most 128 × (S + 1) characters (no token is
 * longer than 128 bytes; the encoding stops once past S) plus one chunk (16,384: a window reads
 * to the next cut past the limit); the encoder is given at most 3 × what the share shows plus one
 * chunk (one window to learn the ratio, one more to the limit), and the scanner walks at most
 * 3 × what is shown plus two chunks (a walk looks at most one chunk past a window for a piece's
 * end). So work ≤ 3 × 128 × (S + 1) + 4 chunks whatever the body's length.
 */
const c = 3;

describe('fuzz: the cost of counting a share is bounded by the share, not by the body', () => {
  it('property: an encoding within S tokens, from either end, of any body up to megabytes, gives the encoder at most c × what S can show', async () => {
    let longest = 0;
    await fc.assert(
      fc.asyncProperty(
        bodyArbitrary(maxChars),
        fc.oneof(fc.constantFrom(1, 64, 500, 8000), fc.integer({ min: 1, max: 20_000 })),
        fc.constantFrom('start' as const, 'end' as const),
        async (segments, share, from) => {
          const text = bodyOf(segments, maxChars);
          longest = Math.max(longest, longestRunChars(segments, maxChars));
          // A new tokenizer each time: a cold count, with no count or piece kept from before.
          const tokenizer = createTiktokenTokenizer();
          try {
            const work = measureWork();
            const encoding = await tokenizer.encodeWithin?.(text, share, from);
            const { encoded, scanned } = work.read();
            if (!encoding) throw new Error('the tiktoken tokenizer encodes within a limit');
            const shown = encoding.end - encoding.start;
            // The share covers the limit (or the whole text), and shows no more than S tokens can.
            if (!encoding.complete) expect(encoding.tokens.length).toBeGreaterThan(share);
            expect(shown).toBeLessThanOrEqual(
              Math.min(text.length, maxTokenBytes * (share + 1) + chunkChars),
            );
            expect(encoded).toBeLessThanOrEqual(c * shown + chunkChars);
            expect(scanned).toBeLessThanOrEqual(c * shown + 2 * chunkChars);
          } finally {
            tokenizer.dispose();
          }
        },
      ),
      fuzzParameters(40, { longShare: 1 / 100 }),
    );
    // The generator reached boundary-less runs of megabytes, not only short strings.
    expect(longest).toBeGreaterThanOrEqual(1_000_000);
  }, 120_000);
});
