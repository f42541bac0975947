import { describe, expect, it } from 'vitest';
import { truncateRelevant } from '../../src/budget/truncate/truncate-relevant.js';
import type { TruncationRequest } from '../../src/budget/truncate/truncation-strategy.js';
import { truncationRequest } from './truncation-request.js';

/** The cut's text and ranges; its parts, checked: they make up the text, each known count exact. */
async function relevantCut(request: TruncationRequest) {
  const { text, elided, parts } = await truncateRelevant(request);
  if (parts) {
    expect(parts.map((part) => part.text).join('')).toBe(text);
    for (const part of parts)
      if (part.tokens !== undefined) expect(part.tokens).toBe(await request.tokenizer.count(part.text));
  }
  return { text, elided };
}

// Each paragraph a line of 110 characters; splitIntoChunks makes each its own chunk (every chunk
// after the first starts with the blank line before its paragraph: 111 characters).
const paragraph = (words: string) => `${words.padEnd(109, '.')}\n`;
const [intro, setup, failed, stock, retried, outro] = [
  'intro',
  'setup',
  'payment payment failed',
  'stock',
  'payment retried',
  'outro',
].map(paragraph) as [string, string, string, string, string, string];
const body = [intro, setup, failed, stock, retried, outro].join('\n');

describe('truncateRelevant', () => {
  // Twice the characters: offsets in markers are proportional estimates, 2 tokens per character.
  const request = { markerTokens: 5, originalTokens: 1330, query: 'payment' } as const;

  it('keeps the chunks that match, best first, in document order, a marker at every gap; each chunk that adds a gap pays for its marker', async () => {
    // "payment payment failed" scores highest: 111 tokens and a second gap's marker (5); then
    // "payment retried", the same again: 232 in all, exactly the share.
    expect(await relevantCut(truncationRequest(body, { ...request, contentTokens: 232 }))).toStrictEqual({
      text: `[~0-442]\n${failed}[~664-886]\n${retried}[~1108-1330]`,
      elided: [
        { startToken: 0, endToken: 442 },
        { startToken: 664, endToken: 886 },
        { startToken: 1108, endToken: 1330 },
      ],
    });
  });

  it('a chunk whose marker would overrun the share is skipped; a chunk that adds no gap costs only its tokens', async () => {
    // The second match would cost 116 of the 114 left; the first chunk (110) joins the gap before
    // "payment payment failed" to the start, adding no gap.
    expect(await relevantCut(truncationRequest(body, { ...request, contentTokens: 230 }))).toStrictEqual({
      text: `${intro}[~220-442]\n${failed}[~664-1330]`,
      elided: [
        { startToken: 220, endToken: 442 },
        { startToken: 664, endToken: 1330 },
      ],
    });
  });

  it('after 8 chunks in a row that do not fit, the share is taken as full', async () => {
    // The match (110 tokens), then 8 chunks of 301 tokens, then one of 111 that would fit.
    const long = `\n${'y'.repeat(299)}\n`;
    const text = `${paragraph('payment')}${long.repeat(8)}\n${paragraph('last')}`;
    const result = await relevantCut(
      truncationRequest(text, { query: 'payment', contentTokens: 221, originalTokens: text.length }),
    );
    expect(result).toStrictEqual({
      text: `${paragraph('payment')}[~110-${text.length}]`,
      elided: [{ startToken: 110, endToken: text.length }],
    });
  });

  it('the pinned prefix (a CSV header) stays in front', async () => {
    // Rows of 80 characters: chunks of 4 rows after the header.
    const rows = Array.from({ length: 8 }, (_, index) =>
      `${index},${index === 5 ? 'payment' : 'stock'}`.padEnd(79, '.'),
    );
    const csv = `id,item\n${rows.join('\n')}\n`;
    const result = await relevantCut(
      truncationRequest(csv, {
        query: 'payment',
        pinnedChars: 8,
        contentTokens: 328,
        originalTokens: csv.length,
      }),
    );
    expect(result).toStrictEqual({
      text: `id,item\n[~8-328]${rows.slice(4).join('\n')}\n`,
      elided: [{ startToken: 8, endToken: 328 }],
    });
  });

  it('a chunk at the end that leaves no gap after it pays for no second marker', async () => {
    // 111 tokens, exactly the share: the one gap is before it.
    expect(
      await relevantCut(truncationRequest(body, { ...request, query: 'outro', contentTokens: 111 })),
    ).toStrictEqual({
      text: `[~0-1108]\n${outro}`,
      elided: [{ startToken: 0, endToken: 1108 }],
    });
  });

  describe('falls back to head', () => {
    // What truncateHead makes of it: the first tokens, exactly counted, and one marker.
    const headOf = (text: string, tokens: number) => {
      const marker = `[${tokens}-${text.length}]`;
      return {
        text: `${text.slice(0, tokens)}${marker}`,
        elided: [{ startToken: tokens, endToken: text.length }],
        parts: [{ text: text.slice(0, tokens), tokens }, { text: marker }],
      };
    };

    it('without a query', async () => {
      const words = paragraph('what was here before is the setup');
      const text = [intro, words, setup, words, stock, words].join('\n');
      expect(await truncateRelevant(truncationRequest(text, { contentTokens: 120 }))).toStrictEqual(
        headOf(text, 120),
      );
    });

    it('when nothing matches the query', async () => {
      expect(
        await truncateRelevant(truncationRequest(body, { contentTokens: 120, query: 'refund' })),
      ).toStrictEqual(headOf(body, 120));
    });

    it('when no matching chunk fits the share', async () => {
      expect(
        await truncateRelevant(truncationRequest(body, { contentTokens: 50, query: 'payment' })),
      ).toStrictEqual(headOf(body, 50));
    });
  });
});
