import { get_encoding } from 'tiktoken';
import { median, mixedText, round, withEncoderLoaded, withTokenizer } from '../support/context-bench.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

/**
 * Cold counting throughput (chunked, guarded, yielding, hashed for the cache) against one raw
 * tiktoken `encode_ordinary` call on the same text; each run a new text and a new tokenizer.
 * Target: ratio ≥ 0.8.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const chars = options.quick ? 512 * 1024 : 2 * 1024 * 1024;
  const runs = options.quick ? 3 : 5;
  const encoder = get_encoding('o200k_base');
  try {
    return await withEncoderLoaded(async () => {
      const raw: number[] = [];
      const ours: number[] = [];
      let exact = true;
      for (let index = 0; index < runs; index++) {
        const text = mixedText(chars, index + 1);
        let started = performance.now();
        const rawCount = encoder.encode_ordinary(text).length;
        raw.push(performance.now() - started);
        const count = await withTokenizer(async (tokenizer) => {
          started = performance.now();
          const counted = await tokenizer.count(text);
          ours.push(performance.now() - started);
          return counted;
        });
        exact &&= count === rawCount;
      }
      const megabytes = chars / (1024 * 1024);
      const ratio = median(raw) / median(ours);
      return {
        raw_MiB_per_s: round(megabytes / (median(raw) / 1000)),
        ours_MiB_per_s: round(megabytes / (median(ours) / 1000)),
        ratio: round(ratio),
        exact_counts: exact,
        target: '≥ 0.8',
        met: ratio >= 0.8,
      };
    });
  } finally {
    encoder.free();
  }
}

export const readme: ReadmeRow = {
  what: 'cold chunked counting vs raw `encode_ordinary` on 2 MiB',
  result: (figures) =>
    `**${figures.ratio}×** (${figures.ours_MiB_per_s} vs ${figures.raw_MiB_per_s} MiB/s), counts ${figures.exact_counts ? 'exact' : '**not exact**'}`,
  target: '≥ 0.8',
};
