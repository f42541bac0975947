import { createTiktokenTokenizer, type Tokenizer } from '../../src/index.js';
import { createBenchProvider } from '../support/bench-provider.js';
import { startBulkServer } from '../support/bulk-server.js';
import { medianMs, round } from '../support/measure.js';

const resourceBytes = 64 * 1024;

/**
 * A warm turn (content cache and derived conversion/count cache populated) against the naive
 * path that re-reads and re-tokenizes every pinned resource every turn (no cache, every body
 * encoded in full), at 1, 10, 100 (and 1000) pinned 64 KB resources, 8k-token budget. Also the
 * provider without its cache but with budget-bounded counting (`uncached`), for an honest middle.
 * `ratio` = naive / warm at 100 attachments.
 */
export async function run(options: { quick: boolean }): Promise<Record<string, number | string | boolean>> {
  const counts = options.quick ? [1, 10, 100] : [1, 10, 100, 1000];
  const tokenizer = createTiktokenTokenizer();
  const fullEncoding = withoutBoundedEncoding(tokenizer);
  const figures: Record<string, number> = {};
  try {
    for (const count of counts) {
      const server = startBulkServer(count, resourceBytes);
      const cache = { maxBytes: 2 * count * (resourceBytes + 1024) };
      const warm = await createBenchProvider({ ...server, tokenizer, maxTokens: 8000, cache });
      const uncached = await createBenchProvider({ ...server, tokenizer, maxTokens: 8000, cache: false });
      const naive = await createBenchProvider({
        ...server,
        tokenizer: fullEncoding,
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
    }
  } finally {
    tokenizer.dispose();
  }
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
