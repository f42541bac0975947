import { fitResource, median, mixedText, round, withTokenizer } from '../support/context-bench.js';

/**
 * Fitting 64 KB, 1 MB and 5 MB resources into 8k tokens (convert + count + plan + cut + frame +
 * exact verification). Target: the 5 MB case costs at most 3× the 64 KB one.
 */
export async function run(options: { quick: boolean }): Promise<Record<string, number | string | boolean>> {
  const runs = options.quick ? 3 : 7;
  const sizes = { '64KB': 64 * 1024, '1MB': 1024 * 1024, '5MB': 5 * 1024 * 1024 };
  return withTokenizer(async (tokenizer) => {
    await fitResource(mixedText(4096), tokenizer, 8000); // warm the encoder and the JIT
    const figures: Record<string, number | string | boolean> = {};
    for (const [label, size] of Object.entries(sizes)) {
      const times: number[] = [];
      for (let index = 0; index < runs; index++) {
        // A fresh text per run: no count-cache hits.
        const text = mixedText(size, index + 1);
        const started = performance.now();
        const composed = await fitResource(text, tokenizer, 8000);
        times.push(performance.now() - started);
        if (composed.usedTokens > 8000) throw new Error(`${label}: over budget`);
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
