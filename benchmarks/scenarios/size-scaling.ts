import {
  fitResource,
  median,
  mixedText,
  round,
  withEncoderLoaded,
  withTokenizer,
} from '../support/context-bench.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

/**
 * Fitting 64 KB, 1 MB and 5 MB resources into 8k tokens (convert + count + plan + cut + frame +
 * exact verification), each run with a new text and a new tokenizer (empty count caches).
 * Target: the 5 MB case costs at most 3× the 64 KB one.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const runs = options.quick ? 3 : 7;
  const sizes = { '64KB': 64 * 1024, '1MB': 1024 * 1024, '5MB': 5 * 1024 * 1024 };
  return withEncoderLoaded(async () => {
    await withTokenizer((tokenizer) => fitResource(mixedText(4096), tokenizer, 8000)); // warm the JIT
    const figures: Figures = {};
    for (const [label, size] of Object.entries(sizes)) {
      const times: number[] = [];
      for (let index = 0; index < runs; index++) {
        const text = mixedText(size, index + 1);
        await withTokenizer(async (tokenizer) => {
          const started = performance.now();
          const composed = await fitResource(text, tokenizer, 8000);
          times.push(performance.now() - started);
          if (composed.usedTokens > 8000) throw new Error(`${label}: over budget`);
        });
      }
      figures[`ms_${label}`] = round(median(times));
    }
    const ratio = (figures.ms_5MB as number) / (figures.ms_64KB as number);
    figures.ratio = round(ratio);
    figures.target = '≤ 3';
    figures.met = ratio <= 3;
    return figures;
  });
}

export const readme: ReadmeRow = {
  what: 'fitting 64 KB, 1 MB, 5 MB into 8k tokens (new text and tokenizer per run)',
  result: (figures) => `${figures.ms_64KB} / ${figures.ms_1MB} / ${figures.ms_5MB} ms: **${figures.ratio}×**`,
  target: '≤ 3×',
};
