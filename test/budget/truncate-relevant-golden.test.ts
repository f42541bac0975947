import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ComposableAttachment, composeContext } from '../../src/budget/compose-context.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import { truncateRelevant } from '../../src/budget/truncate/truncate-relevant.js';
import { DerivedCache } from '../../src/cache/derived-cache.js';
import { truncationRequest } from './truncation-request.js';

// What `relevant` chooses, pinned: the same inputs must cut the same way. Written when its chunks,
// term statistics and chunk counts came to be derived once per body (issue 38), by the code before
// that change, and rewritten once since, on purpose (issue 38.1: markers after a cut's first are
// brief, a chunk that closes a gap gets its marker back, chunks of ~640 characters take the blank
// lines after them), and its compositions once more (the grow step hands a cut the slack on top of
// what it rendered, not of its share: the cuts themselves unchanged). `UPDATE_GOLDEN=1` rewrites it; do not, unless a change of the cut is meant.
const goldenPath = join(import.meta.dirname, 'truncate-relevant-golden.json');
const golden = JSON.parse(readFileSync(goldenPath, 'utf8')) as Record<string, string>;
const seen: Record<string, string> = {};
const update = process.env.UPDATE_GOLDEN === '1';

const words = ['checkout', 'cart', 'payment', 'service', 'validates', 'stock', 'the', 'ledger', 'refund'];
const words2 = ['tax', 'shipping', 'invoice', 'webhook', 'retries', 'order', 'customer', '日本語', 'ok'];

/** Deterministic prose, code lines, blank lines and a long line now and then. */
function text(chars: number, seed: number): string {
  let state = (seed + 1) * 2654435761;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state;
  };
  const lines: string[] = [];
  let length = 0;
  for (let line = 0; length < chars; line++) {
    const pool = next() % 3 === 0 ? words2 : words;
    const kind = next() % 11;
    const row =
      kind === 0
        ? ''
        : kind === 1
          ? Array.from({ length: 200 + (next() % 200) }, () => pool[next() % pool.length]).join(' ')
          : kind < 4
            ? `  const ${pool[next() % pool.length]}${line} = await ${pool[next() % pool.length]}(${next() % 1000});`
            : Array.from({ length: 4 + (next() % 14) }, () => pool[next() % pool.length]).join(' ');
    lines.push(row);
    length += row.length + 1;
  }
  return lines.join('\n').slice(0, chars);
}

const queries = [
  'payment failed',
  'refund ledger stock',
  'shipping tax invoice',
  '日本語 webhook',
  'checkout',
];

function check(name: string, value: string): void {
  const digest = createHash('sha256').update(value).digest('hex');
  seen[name] = digest;
  if (!update) expect(digest, name).toBe(golden[name]);
}

afterAll(() => {
  if (update) writeFileSync(goldenPath, `${JSON.stringify(seen, null, 2)}\n`);
});

describe('relevant truncation, the same cut as before (golden)', () => {
  it('truncateRelevant on its own: bodies, queries, shares, marker costs and a pinned header', async () => {
    for (const [seed, chars] of [
      [1, 3_000],
      [2, 12_000],
      [3, 40_000],
    ] as const) {
      const body = text(chars, seed);
      for (const query of queries)
        for (const contentTokens of [40, 300, 1_500])
          for (const markerTokens of [0, 7])
            for (const pinnedChars of [0, 20]) {
              const result = await truncateRelevant(
                truncationRequest(body, { query, contentTokens, markerTokens, pinnedChars }),
              );
              check(
                `cut ${seed} ${chars} ${query} ${contentTokens} ${markerTokens} ${pinnedChars}`,
                // What the cut shows and says it left out (its parts only help count it).
                JSON.stringify({ text: result.text, elided: result.elided }),
              );
            }
    }
  });

  it('composeContext with tiktoken: several attachments, budgets and queries, with and without the derived cache', async () => {
    const tokenizer = createTiktokenTokenizer();
    try {
      const items: ComposableAttachment[] = [0, 1, 2, 3].map((index) => {
        const body = text(6_000 + index * 5_000, 10 + index);
        return {
          provenance: {
            scope: index === 0 ? 'message' : 'pipeline',
            server: 'docs',
            uri: `docs://page/${index}`,
            mimeType: 'text/plain',
            sha256: String(index).repeat(64),
          },
          sections: [
            {
              kind: 'text',
              uri: `docs://page/${index}`,
              mimeType: 'text/plain',
              bytes: body.length,
              text: body,
            },
          ],
          contentKey: `content-${index}`,
        };
      });
      const derived = new DerivedCache();
      for (const maxTokens of [900, 3_000, 8_000])
        for (const query of queries)
          for (const memo of [undefined, derived]) {
            const composed = await composeContext(items, tokenizer, {
              maxTokens,
              minTokens: 64,
              strategy: 'fair',
              renderOrder: [0, 1, 2, 3],
              truncation: 'relevant',
              query,
              ...(memo && { derived: memo }),
            });
            expect(composed.usedTokens).toBeLessThanOrEqual(maxTokens);
            // Exact: the cut's parts, its markers among them, counted apart and joined.
            expect(await tokenizer.count(composed.blocks.map((block) => block.text).join(''))).toBe(
              composed.usedTokens,
            );
            check(
              `compose ${maxTokens} ${query} ${memo ? 'memo' : 'none'}`,
              JSON.stringify({
                blocks: composed.blocks.map((block) => block.text),
                used: composed.usedTokens,
              }),
            );
          }
    } finally {
      tokenizer.dispose();
    }
  });
});
