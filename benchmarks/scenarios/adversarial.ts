import { fitResource, median, round, withEncoderLoaded, withTokenizer } from '../support/context-bench.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

/**
 * Content that makes BPE quadratic or is plain hostile: 64 KB of one character, a 14k-character
 * emoji line, 1 MB of base64. Each is counted and fitted into 8k tokens; doubling the input
 * should about double the time (never quadratic). Every measurement has a new tokenizer. Each
 * time is the median of several runs: a single count of the emoji line takes a few ms, and one
 * such timing on a shared machine moved the doubling between 3 and 4 from run to run.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const runs = options.quick ? 3 : 7;
  const base64 = (bytes: number) =>
    Buffer.from(Array.from({ length: bytes }, (_, index) => (index * 2654435761) & 255)).toString('base64');
  const cases: Record<string, (scale: number) => string> = {
    one_char_64KB: (scale) => 'a'.repeat(64 * 1024 * scale),
    emoji_line_14k: (scale) => '🎉'.repeat(7000 * scale),
    base64_1MB: (scale) => base64((options.quick ? 256 : 768) * 1024 * scale),
  };
  return withEncoderLoaded(async () => {
    const figures: Figures = {};
    let worstDoubling = 0;
    for (const [label, make] of Object.entries(cases)) {
      const measure = async (scale: number) => {
        const text = make(scale);
        const countTimes: number[] = [];
        const fitTimes: number[] = [];
        for (let run = 0; run < runs; run++) {
          countTimes.push(
            await withTokenizer(async (tokenizer) => {
              const started = performance.now();
              await tokenizer.count(text);
              return performance.now() - started;
            }),
          );
          fitTimes.push(
            await withTokenizer(async (tokenizer) => {
              const started = performance.now();
              const composed = await fitResource(text, tokenizer, 8000);
              if (composed.usedTokens > 8000) throw new Error(`${label}: over budget`);
              return performance.now() - started;
            }),
          );
        }
        return { countMs: median(countTimes), fitMs: median(fitTimes) };
      };
      const single = await measure(1);
      const double = await measure(2);
      figures[`count_ms_${label}`] = round(single.countMs);
      figures[`fit_8k_ms_${label}`] = round(single.fitMs);
      const doubling = double.countMs / Math.max(0.01, single.countMs);
      figures[`doubling_${label}`] = round(doubling);
      worstDoubling = Math.max(worstDoubling, doubling);
    }
    figures.target = 'doubling ≈ 2 (quadratic would be 4)';
    figures.met = worstDoubling < 3;
    return figures;
  });
}

export const readme: ReadmeRow = {
  what: '64 KB of one character, a 14k-character emoji line, 1 MB of base64',
  result: (figures) =>
    `doubling the input doubles the time (${figures.doubling_one_char_64KB}, ${figures.doubling_emoji_line_14k}, ${figures.doubling_base64_1MB}; quadratic would be 4)`,
  target: 'linear',
};
