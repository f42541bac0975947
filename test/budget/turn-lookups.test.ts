import { describe, expect, it } from 'vitest';
import type { BudgetMemo } from '../../src/budget/composable-attachment.js';
import {
  type ComposableAttachment,
  type ComposeOptions,
  composeContext,
} from '../../src/budget/compose-context.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import { DerivedCache } from '../../src/cache/derived-cache.js';

// A lookup in the derived cache is a use: one found on probation moves to main (docs/caches.md).
// A turn's later passes (counting a body on, cutting it again under a grown share) are not a
// later turn's use, so each turn looks each body's measure and chunk index up once. Else every
// message attachment measured twice or cut twice in its turn entered main (hostLike: 300 first
// turns pushed out the chunk indexes of the conversations in progress).

/** The derived cache, recording the lookups of measures (`again` or not), chunk indexes and renderings. */
function recording(derived: DerivedCache): {
  memo: BudgetMemo;
  measures: { key: string; again: boolean }[];
  indexes: string[];
  renderings: string[];
} {
  const measures: { key: string; again: boolean }[] = [];
  const indexes: string[] = [];
  const renderings: string[] = [];
  const memo: BudgetMemo = {
    measureOnce: (key, limit, compute, probation, again) => {
      measures.push({ key, again: again === true });
      return derived.measureOnce(key, limit, compute, probation, again);
    },
    chunkIndex: (key, build, probation) => {
      indexes.push(key);
      return derived.chunkIndex(key, build, probation);
    },
    // Looked up once a turn before it is rendered, kept or not (a `relevant` cut is not kept).
    rendering: (key) => {
      renderings.push(key);
      return derived.rendering(key);
    },
    keepRendering: (key, rendered) => derived.keepRendering(key, rendered),
    composition: (key) => derived.composition(key),
    keepComposition: (key, composed) => derived.keepComposition(key, composed),
    frameCost: (key) => derived.frameCost(key),
    keepFrameCost: (key, cost) => derived.keepFrameCost(key, cost),
  };
  return { memo, measures, indexes, renderings };
}

const words = ['payment', 'refund', 'ledger', 'stock', 'invoice', 'tax', 'checkout', 'order'];
/** Paragraphs of the words above, in an order of their own for each seed. */
function prose(paragraphs: number, seed: number): string {
  return Array.from({ length: paragraphs }, (_, paragraph) =>
    Array.from(
      { length: 40 },
      (_, word) => words[(paragraph * 7 + word * 3 + seed * 5 + word * word * seed) % words.length],
    ).join(' '),
  ).join('\n\n');
}

function item(index: number, scope: 'message' | 'pipeline', body: string): ComposableAttachment {
  const uri = `docs://page/${index}`;
  return {
    provenance: { scope, server: 'docs', uri, mimeType: 'text/plain', sha256: String(index).repeat(64) },
    sections: [{ kind: 'text', uri, mimeType: 'text/plain', bytes: body.length, text: body }],
    contentKey: `content-${index}`,
  };
}

describe('a turn looks each body up in the derived cache once', () => {
  it('however often it measures or cuts a body: counting on peeks, a second cut takes this turn`s chunk index', async () => {
    const tokenizer = createTiktokenTokenizer();
    try {
      let measuredAgain = 0;
      let cutAgain = 0;
      // Turns over a message attachment and two pins, under budgets that make the plan count a
      // body on (a share near its size) and the fit grow cuts (chunks rarely fill a share).
      for (const maxTokens of [600, 900, 1_300, 1_800, 2_400]) {
        for (const truncation of ['head', 'relevant'] as const) {
          const derived = recording(new DerivedCache());
          const items = [
            item(0, 'message', prose(12, 1)),
            item(1, 'pipeline', prose(30, 2)),
            item(2, 'pipeline', prose(20, 3)),
          ];
          const options: ComposeOptions = {
            maxTokens,
            minTokens: 32,
            strategy: 'fair',
            renderOrder: [0, 1, 2],
            truncation,
            query: 'refund ledger tax',
            derived: derived.memo,
          };
          const composed = await composeContext(items, tokenizer, options);
          expect(composed.usedTokens).toBeLessThanOrEqual(maxTokens);
          // Each key's first lookup is a use; every later one this turn counts on from it.
          const firstLookups = derived.measures.filter(({ again }) => !again).map(({ key }) => key);
          expect(new Set(firstLookups).size, `${truncation} at ${maxTokens}`).toBe(firstLookups.length);
          measuredAgain += derived.measures.length - firstLookups.length;
          expect(new Set(derived.indexes).size, `${truncation} at ${maxTokens}`).toBe(derived.indexes.length);
          if (truncation === 'relevant') {
            // Every body cut is cut through its index; a body cut under two shares was cut twice.
            const cuts = derived.renderings.filter((key) => key.includes('\u0000cut:'));
            const cutBodies = new Set(cuts.map((key) => key.split('\u0000')[0]));
            expect(derived.indexes).toHaveLength(cutBodies.size);
            cutAgain += cuts.length - cutBodies.size;
          }
        }
      }
      // The turns above did measure bodies on and cut bodies again (else they would test nothing).
      expect(measuredAgain).toBeGreaterThan(0);
      expect(cutAgain).toBeGreaterThan(0);
    } finally {
      tokenizer.dispose();
    }
  });
});
