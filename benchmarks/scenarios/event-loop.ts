import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fitResource, mixedText, round, withTokenizer } from '../support/context-bench.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

/**
 * The longest event-loop block while a 5 MB resource is fitted into 8k tokens (the target:
 * ≤ 25 ms), and, for reference, while it is counted in full.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const text = mixedText((options.quick ? 2 : 5) * 1024 * 1024, 3);
  return withTokenizer(async (tokenizer) => {
    await tokenizer.count('warm up');
    const blockDuring = async (work: () => Promise<unknown>) => {
      const histogram = monitorEventLoopDelay({ resolution: 1 });
      histogram.enable();
      await work();
      histogram.disable();
      // The histogram records delay beyond the 1 ms resolution, in nanoseconds.
      return histogram.max / 1e6;
    };
    const turnMs = await blockDuring(() => fitResource(text, tokenizer, 8000));
    const countMs = await blockDuring(() => tokenizer.count(`${text}.`));
    return {
      max_block_ms_turn: round(turnMs),
      max_block_ms_full_count: round(countMs),
      target: '≤ 25 ms',
      met: turnMs <= 25,
    };
  });
}

export const readme: ReadmeRow = {
  what: 'longest event-loop block during a 5 MB turn (`monitorEventLoopDelay`)',
  result: (figures) => `**${figures.max_block_ms_turn} ms**`,
  target: '≤ 25 ms',
};
