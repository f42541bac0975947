import { createTiktokenTokenizer, type Tokenizer } from '../../src/index.js';
import { createBenchProvider } from '../support/bench-provider.js';
import { startBulkServer } from '../support/bulk-server.js';
import { withEncoderLoaded } from '../support/context-bench.js';
import { medianMs, round } from '../support/measure.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

const resourceBytes = 64 * 1024;

/**
 * A warm turn (content cache and derived conversion/count cache populated) against the naive
 * path that re-reads and re-tokenizes every pinned resource every turn (no cache, every body
 * encoded in full), at 1, 10, 100 (and 1000) pinned 64 KB resources, 8k-token budget. Also the
 * provider without its cache but with budget-bounded counting (`uncached`), for an honest middle.
 * The three share nothing but the server: each has its own registry (session), tokenizer (count
 * caches) and, for `warm` alone, content and derived caches.
 * `ratio` = naive / warm at 100 attachments.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const counts = options.quick ? [1, 10, 100] : [1, 10, 100, 1000];
  const figures: Record<string, number> = {};
  await withEncoderLoaded(async () => {
    for (const count of counts) {
      const server = startBulkServer(count, resourceBytes);
      const cache = { maxBytes: 2 * count * (resourceBytes + 1024) };
      const tokenizers = [createTiktokenTokenizer(), createTiktokenTokenizer(), createTiktokenTokenizer()];
      const [warmTokenizer, uncachedTokenizer, naiveTokenizer] = tokenizers as [
        Tokenizer,
        Tokenizer,
        Tokenizer,
      ];
      const warm = await createBenchProvider({ ...server, tokenizer: warmTokenizer, maxTokens: 8000, cache });
      const uncached = await createBenchProvider({
        ...server,
        tokenizer: uncachedTokenizer,
        maxTokens: 8000,
        cache: false,
      });
      const naive = await createBenchProvider({
        ...server,
        tokenizer: withoutBoundedEncoding(naiveTokenizer),
        maxTokens: 8000,
        cache: false,
      });
      const turn = { pipelineId: 'bench' };
      const slow = count >= 1000 ? 1 : count >= 100 ? 3 : 5;
      const warmMs = await medianMs(() => warm.provider.provide(turn), 15, 1);
      const uncachedMs = await medianMs(() => uncached.provider.provide(turn), slow, 1);
      const naiveMs = await medianMs(() => naive.provider.provide(turn), slow, count >= 1000 ? 0 : 1);
      figures[`warmUsPerAttachment@${count}`] = round((warmMs * 1000) / count, 1);
      figures[`uncachedUsPerAttachment@${count}`] = round((uncachedMs * 1000) / count, 1);
      figures[`naiveUsPerAttachment@${count}`] = round((naiveMs * 1000) / count, 1);
      figures[`ratio@${count}`] = round(naiveMs / warmMs, 1);
      figures[`uncachedRatio@${count}`] = round(uncachedMs / warmMs, 1);
      await Promise.all([warm.close(), uncached.close(), naive.close()]);
      for (const tokenizer of tokenizers) tokenizer.dispose();
    }
  });
  const ratio = figures['ratio@100'] ?? Number.NaN;
  return { ratio, target: '>= 100 at 100 attachments', met: ratio >= 100, resourceBytes, ...figures };
}

// --- Internal helpers ---

/** The same tokenizer without bounded encoding: every body is encoded in full, as a naive host would. */
function withoutBoundedEncoding(tokenizer: Tokenizer): Tokenizer {
  return {
    name: tokenizer.name,
    encode: (text) => tokenizer.encode(text),
    decode: (tokens) => tokenizer.decode(tokens),
    count: (text) => tokenizer.encode(text).then((tokens) => tokens.length),
    dispose: () => {},
  };
}

export const readme: ReadmeRow = {
  what: 'warm turn (content + derived caches) vs re-read and re-tokenize every pinned 64 KB resource every turn, 8k budget',
  result: (figures) => {
    const others = [1, 10, 1000]
      .filter((count) => figures[`ratio@${count}`] !== undefined)
      .map((count) => `${figures[`ratio@${count}`]}× at ${count}`)
      .join(', ');
    const warmUs = figures['warmUsPerAttachment@100'] as number;
    const naiveMs = (figures['naiveUsPerAttachment@100'] as number) / 1000;
    return (
      `**${figures.ratio}×** at 100 attachments (${warmUs} µs vs ${round(naiveMs, 1)} ms per attachment); ` +
      `${others}; the provider without its cache is ${figures['uncachedRatio@100']}× slower than warm at 100`
    );
  },
  target: '≥ 100× at 100',
};
