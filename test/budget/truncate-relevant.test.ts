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

// Each paragraph a line of 220 characters; splitIntoChunks makes each its own chunk (every chunk
// but the last ends with the blank line after its paragraph: 221 characters).
const paragraph = (words: string) => `${words.padEnd(219, '.')}\n`;
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
  const request = { markerTokens: 5, originalTokens: 2650, query: 'payment' } as const;

  it('keeps the chunks that match, best first, in document order, a marker at every gap; each chunk that adds a gap pays for its marker', async () => {
    // "payment payment failed" scores highest: 221 tokens and a second gap's marker (5); then
    // "payment retried", the same again: 452 in all, exactly the share.
    expect(await relevantCut(truncationRequest(body, { ...request, contentTokens: 452 }))).toStrictEqual({
      text: `[~0-884]${failed}\n[~1326-1768]${retried}\n[~2210-2650]`,
      elided: [
        { startToken: 0, endToken: 884 },
        { startToken: 1326, endToken: 1768 },
        { startToken: 2210, endToken: 2650 },
      ],
    });
  });

  it('a chunk whose marker would overrun the share is skipped; a chunk that adds no gap costs only its tokens', async () => {
    // The second match would cost 226 of the 224 left; the first chunk (221) joins the gap before
    // "payment payment failed" to the start, adding no gap.
    expect(await relevantCut(truncationRequest(body, { ...request, contentTokens: 450 }))).toStrictEqual({
      text: `${intro}\n[~442-884]${failed}\n[~1326-2650]`,
      elided: [
        { startToken: 442, endToken: 884 },
        { startToken: 1326, endToken: 2650 },
      ],
    });
  });

  it('after 8 chunks in a row that do not fit, the share is taken as full', async () => {
    // The match (221 tokens with its blank line), then 8 chunks of 301 tokens, then one of 220
    // that would fit.
    const long = `\n${'y'.repeat(299)}\n`;
    const text = `${paragraph('payment')}${long.repeat(8)}\n${paragraph('last')}`;
    const result = await relevantCut(
      truncationRequest(text, { query: 'payment', contentTokens: 441, originalTokens: text.length }),
    );
    expect(result).toStrictEqual({
      text: `${paragraph('payment')}\n[~221-${text.length}]`,
      elided: [{ startToken: 221, endToken: text.length }],
    });
  });

  it('the pinned prefix (a CSV header) stays in front', async () => {
    // Rows of 80 characters: chunks of 8 rows after the header.
    const rows = Array.from({ length: 16 }, (_, index) =>
      `${index},${index === 11 ? 'payment' : 'stock'}`.padEnd(79, '.'),
    );
    const csv = `id,item\n${rows.join('\n')}\n`;
    const result = await relevantCut(
      truncationRequest(csv, {
        query: 'payment',
        pinnedChars: 8,
        contentTokens: 648,
        originalTokens: csv.length,
      }),
    );
    expect(result).toStrictEqual({
      text: `id,item\n[~8-648]${rows.slice(8).join('\n')}\n`,
      elided: [{ startToken: 8, endToken: 648 }],
    });
  });

  it('the pinned prefix is given up when it would take over half the share', async () => {
    // A 300-character header, then the paragraphs: kept in front from a share of 600 on.
    const header = `${'h'.repeat(299)}\n`;
    const text = `${header}${[intro, setup, failed].join('\n')}`;
    const cut = (contentTokens: number) =>
      relevantCut(
        truncationRequest(text, { ...request, pinnedChars: 300, contentTokens, originalTokens: text.length }),
      );
    expect((await cut(600)).text.startsWith(header)).toBe(true);
    // At 550 the header is not pinned: it is the start of the first chunk, which does not fit.
    const unpinned = await cut(550);
    expect(unpinned.text.startsWith('h')).toBe(false);
    expect(unpinned.text).toContain(failed);
  });

  it('a chunk at the end that leaves no gap after it pays for no second marker', async () => {
    // 220 tokens, exactly the share: the one gap is before it.
    expect(
      await relevantCut(truncationRequest(body, { ...request, query: 'outro', contentTokens: 220 })),
    ).toStrictEqual({
      text: `[~0-2210]${outro}`,
      elided: [{ startToken: 0, endToken: 2210 }],
    });
  });

  it('the first marker is full, every later one brief, each brief one costing briefMarkerTokens', async () => {
    const marker = (range: { startToken: number }, _estimated: boolean, brief?: boolean) =>
      `\n[${brief ? 'brief' : 'full'} ${range.startToken}]\n`;
    // Both matches (221 each) and two further gaps at 3 each (not 5): 448, the share.
    const result = await relevantCut(
      truncationRequest(body, { ...request, briefMarkerTokens: 3, contentTokens: 448, marker }),
    );
    // A marker after a line's end drops its own leading newline; the one at the start keeps it.
    expect(result.text).toBe(`\n[full 0]\n${failed}\n[brief 1326]\n${retried}\n[brief 2210]\n`);
    expect(result.elided.map((range) => range.startToken)).toEqual([0, 1326, 2210]);
    // At a brief marker's full cost (5), the second match does not fit: 448 would have to be 452.
    const dearer = await relevantCut(
      truncationRequest(body, { ...request, briefMarkerTokens: 5, contentTokens: 448, marker }),
    );
    expect(dearer.text).not.toContain(retried);
  });

  it('a chunk that closes the last gap gets nothing back: the plan paid for that marker', async () => {
    // Two chunks: the match (221) and "stock" (220), which would close the one gap. Both need
    // 441, more than the share of 438: "stock" stays out. Credited a marker (5) for closing the
    // last gap, they would come to 436 and the cut would show the whole body, over its share.
    const two = [failed, stock].join('\n');
    const result = await relevantCut(
      truncationRequest(two, { ...request, originalTokens: 882, contentTokens: 438 }),
    );
    expect(result).toStrictEqual({
      text: `${failed}\n[~442-882]`,
      elided: [{ startToken: 442, endToken: 882 }],
    });
  });

  it('a chunk that closes a gap gets its marker back', async () => {
    // After the matches (452), the chunks that match nothing in document order: "intro" and
    // "setup" (221 each, no gap closed) no longer fit, "stock" between the matches closes the gap
    // between them: 221 less a marker (5), 668 in all; charged the full 221 it would need 673.
    const result = await relevantCut(truncationRequest(body, { ...request, contentTokens: 668 }));
    expect(result.text).toBe(`[~0-884]${failed}\n${stock}\n${retried}\n[~2210-2650]`);
    expect(result.elided).toEqual([
      { startToken: 0, endToken: 884 },
      { startToken: 2210, endToken: 2650 },
    ]);
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
