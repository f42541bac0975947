import { describe, expect, it } from 'vitest';
import {
  type ComposableAttachment,
  type ComposeOptions,
  composeContext,
} from '../../src/budget/compose-context.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
import type { ChunkIndex } from '../../src/budget/truncate/chunk-index.js';
import { splitIntoChunks } from '../../src/budget/truncate/split-into-chunks.js';
import { truncateRelevant } from '../../src/budget/truncate/truncate-relevant.js';
import type { ChunkMemo } from '../../src/budget/truncate/truncation-strategy.js';
import { DerivedCache } from '../../src/cache/derived-cache.js';
import { createCharTokenizer } from './char-tokenizer.js';
import { truncationRequest } from './truncation-request.js';

// `relevant` derives a body's chunks, term statistics and chunk counts once (issue 38.1): a later
// turn over the same body, whatever its query, scores the query and counts nothing it counted.

/** Records the text of every count and encoding the budget asks of `inner`. */
function counting(inner: Tokenizer): { tokenizer: Tokenizer; counted: string[] } {
  const counted: string[] = [];
  const tokenizer: Tokenizer = {
    name: inner.name,
    ...(inner.piecewise !== undefined && { piecewise: inner.piecewise }),
    encode: (text) => {
      counted.push(text);
      return inner.encode(text);
    },
    decode: (tokens) => inner.decode(tokens),
    count: (text) => {
      counted.push(text);
      return inner.count(text);
    },
    dispose: () => inner.dispose(),
  };
  return { tokenizer, counted };
}

/** `counting`, keeping the tokenizer's prefix counts (read off an encoding: no count asked). */
function countingWithPrefix(inner: Tokenizer): { tokenizer: Tokenizer; counted: string[] } {
  const { tokenizer, counted } = counting(inner);
  return {
    tokenizer: {
      ...tokenizer,
      ...(inner.countPrefix && { countPrefix: inner.countPrefix.bind(inner) }),
      ...(inner.encodeWithin && { encodeWithin: inner.encodeWithin.bind(inner) }),
    },
    counted,
  };
}

/** A memo over a derived cache that records each index it builds. */
function recordingMemo(derived = new DerivedCache()): { memo: ChunkMemo; builds: string[] } {
  const builds: string[] = [];
  return {
    builds,
    memo: {
      chunkIndex: (key, build) =>
        derived.chunkIndex(key, () => {
          builds.push(key);
          return build();
        }),
    },
  };
}

const topics = ['payment failed', 'stock reserved', 'refund issued', 'invoice sent', 'tax computed'];
const body = Array.from(
  { length: 60 },
  (_, index) =>
    `${topics[index % topics.length]} in step ${index}: the service logs it.\n${'x '.repeat(40)}\n`,
).join('\n');

describe('relevant derives each body once', () => {
  it('a second cut of the same body with a new query builds no index and counts only chunks no earlier cut weighed', async () => {
    const { tokenizer, counted } = counting(createTiktokenTokenizer());
    const { memo, builds } = recordingMemo();
    const chunks = { memo, key: 'body-1' };
    try {
      const first = await truncateRelevant(
        truncationRequest(body, { tokenizer, chunks, query: 'payment failed', contentTokens: 400 }),
      );
      expect(builds).toEqual(['body-1\u00000']);
      expect(counted.length).toBeGreaterThan(0);
      const firstCounted = new Set(counted);
      counted.length = 0;
      // The same query again: nothing to count at all.
      const again = await truncateRelevant(
        truncationRequest(body, { tokenizer, chunks, query: 'payment failed', contentTokens: 400 }),
      );
      expect(again.text).toBe(first.text);
      expect(counted).toEqual([]);
      // New queries: no chunk is counted a second time, and the index is never built again.
      for (const query of topics) {
        await truncateRelevant(truncationRequest(body, { tokenizer, chunks, query, contentTokens: 400 }));
        for (const text of counted) expect(firstCounted.has(text), text).toBe(false);
        for (const text of counted) firstCounted.add(text);
        counted.length = 0;
      }
      expect(builds).toEqual(['body-1\u00000']);
    } finally {
      tokenizer.dispose();
    }
  });

  it('a new body`s chunks within the measuring pass`s tokens are read off them: not counted, each count the chunk`s own', async () => {
    const inner = createTiktokenTokenizer();
    const { tokenizer, counted } = countingWithPrefix(inner);
    const { memo, builds } = recordingMemo();
    let index: ChunkIndex | undefined;
    const keeping: ChunkMemo = {
      chunkIndex: (key, build, probation) => {
        index = memo.chunkIndex(key, build, probation);
        return index;
      },
    };
    try {
      const headEncoding = await inner.encodeWithin?.(body, 600, 'start');
      if (!headEncoding) throw new Error('tiktoken encodes within a limit');
      const request = { tokenizer, query: 'payment failed refund', contentTokens: 900 };
      const cut = await truncateRelevant(
        truncationRequest(body, { ...request, headEncoding, chunks: { memo: keeping, key: 'new-body' } }),
      );
      const plain = await truncateRelevant(truncationRequest(body, { ...request, tokenizer: inner }));
      expect(cut.text).toBe(plain.text);
      expect(builds).toHaveLength(1);
      const kept = index as ChunkIndex;
      let readOff = 0;
      for (let chunk = 0; chunk < kept.starts.length; chunk++) {
        const tokens = kept.tokens[chunk] as number;
        if (tokens < 0) continue;
        const text = body.slice(kept.starts[chunk], kept.ends[chunk]);
        expect(tokens, text).toBe(await inner.count(text));
        if ((kept.ends[chunk] as number) <= headEncoding.end) {
          readOff++;
          expect(counted).not.toContain(text);
        }
      }
      expect(readOff).toBeGreaterThan(2);
    } finally {
      inner.dispose();
    }
  });

  it('a chunk not counted yet that could not fit in twice what is left of the share is not counted', async () => {
    // Paragraphs of one 650-character line each: a chunk apiece, every one matching the query.
    const paragraphs = Array.from({ length: 12 }, (_, index) =>
      `payment ${index} ${'ledger entry '.repeat(60)}`.slice(0, 650),
    );
    const text = `${paragraphs.join('\n\n')}\n`;
    const { tokenizer, counted } = counting(createCharTokenizer().tokenizer);
    const { memo } = recordingMemo();
    const cut = await truncateRelevant(
      truncationRequest(text, {
        tokenizer,
        query: 'payment',
        contentTokens: 800,
        chunks: { memo, key: 'p' },
      }),
    );
    // One chunk fits; with 150 left, the rest (650 each) are not weighed by counting.
    expect(cut.text.match(/payment \d+/g)).toHaveLength(1);
    expect(counted.filter((counting) => counting.startsWith('payment'))).toHaveLength(1);
  });

  it('each cut through the memo is the cut made without it', async () => {
    const { memo } = recordingMemo();
    for (const query of [...topics, 'step 7 logs', 'nothing here'])
      for (const contentTokens of [60, 300, 900]) {
        const request = truncationRequest(body, { query, contentTokens, markerTokens: 3 });
        const plain = await truncateRelevant(request);
        const memoized = await truncateRelevant({ ...request, chunks: { memo, key: 'body' } });
        expect({ text: memoized.text, elided: memoized.elided }).toEqual({
          text: plain.text,
          elided: plain.elided,
        });
      }
  });

  it('a different body under the same key is indexed again, never cut with the other body`s chunks', async () => {
    const { memo, builds } = recordingMemo();
    const chunks = { memo, key: 'reused-key' };
    await truncateRelevant(truncationRequest(body, { chunks, query: 'refund', contentTokens: 300 }));
    const changed = `${body}\nrefund reversed at the end.\n`;
    const cut = await truncateRelevant(
      truncationRequest(changed, { chunks, query: 'refund', contentTokens: 300 }),
    );
    const plain = await truncateRelevant(truncationRequest(changed, { query: 'refund', contentTokens: 300 }));
    expect(cut.text).toBe(plain.text);
    expect(cut.text).toContain('refund reversed at the end.');
    expect(builds).toHaveLength(1);
  });
});

describe('relevant turns through composeContext and the derived cache', () => {
  const item = (text: string, sha: string): ComposableAttachment => ({
    provenance: {
      scope: 'pipeline',
      server: 'docs',
      uri: 'docs://log',
      mimeType: 'text/plain',
      sha256: sha.repeat(64),
    },
    sections: [{ kind: 'text', uri: 'docs://log', mimeType: 'text/plain', bytes: text.length, text }],
    contentKey: `${sha}:default`,
  });
  const options = (query: string, derived?: DerivedCache): ComposeOptions => ({
    maxTokens: 700,
    minTokens: 32,
    strategy: 'fair',
    renderOrder: [0],
    truncation: 'relevant',
    query,
    ...(derived && { derived }),
  });
  const resource = (composed: { blocks: readonly { kind: string; text: string }[] }) =>
    composed.blocks.find((block) => block.kind === 'resource')?.text;

  it('a turn with a new query re-counts no chunk of an unchanged body; a changed body is derived anew; both cut as without the cache', async () => {
    const { tokenizer, counted } = counting(createTiktokenTokenizer());
    const derived = new DerivedCache();
    // What a cut counts of the body: its chunks (countJoined also counts a few characters at each
    // join, which are not chunks).
    const chunkTexts = new Set(splitIntoChunks(body).map(({ start, end }) => body.slice(start, end)));
    const countedChunks = () => counted.filter((text) => chunkTexts.has(text));
    try {
      const first = await composeContext([item(body, 'a')], tokenizer, options('payment failed', derived));
      const firstCounted = new Set(countedChunks());
      expect(firstCounted.size).toBeGreaterThan(0);
      counted.length = 0;
      const second = await composeContext([item(body, 'a')], tokenizer, options('refund issued', derived));
      expect(second.usedTokens).toBeLessThanOrEqual(700);
      for (const text of countedChunks()) expect(firstCounted.has(text), text).toBe(false);
      expect(second).toEqual(await composeContext([item(body, 'a')], tokenizer, options('refund issued')));
      expect(resource(first)).not.toBe(resource(second));

      // The body changed (a new hash): its chunks are its own.
      const changed = body.replace('payment failed in step 50', 'payment failed twice in step 50');
      counted.length = 0;
      const third = await composeContext(
        [item(changed, 'b')],
        tokenizer,
        options('payment failed twice', derived),
      );
      expect(third).toEqual(
        await composeContext([item(changed, 'b')], tokenizer, options('payment failed twice')),
      );
      expect(resource(third)).toContain('payment failed twice in step 50');
      expect(counted.some((text) => text.includes('payment failed twice in step 50'))).toBe(true);
    } finally {
      tokenizer.dispose();
    }
  });
});
