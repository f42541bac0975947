import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { createTiktokenTokenizer } from '../../src/index.js';
import { openTelemetry } from '../../src/opentelemetry.js';
import { createBenchProvider } from '../support/bench-provider.js';
import { startBulkServer } from '../support/bulk-server.js';
import { withEncoderLoaded } from '../support/context-bench.js';
import { interleavedMedians, percentile, round } from '../support/measure.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

const attachments = 100;
const resourceBytes = 64 * 1024;

/**
 * The warm turn (100 pinned 64 KB resources, 8k budget, caches populated) with and without the
 * instrumentation path: `none` (no telemetry option, the default), `none again` (a second
 * uninstrumented provider: the A/A spread that says what noise is), `noop` (`openTelemetry()` with
 * no tracer provider registered: the turn span is not recording, so no step spans are made) and
 * `recording` (an SDK tracer with no exporter: every span is built). The first three take turns
 * round by round, in a fresh random order each round, so drift in machine load hits them alike;
 * `recording` runs after them. Each figure is a median.
 * Target: `noop` within 5 % of `none`.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  // Warm turns are kept turns, microseconds each: many rounds cost little.
  const rounds = options.quick ? 100 : 600;
  const figures: Record<string, number | string | boolean> = {};
  await withEncoderLoaded(async () => {
    const server = startBulkServer(attachments, resourceBytes);
    const cache = { maxBytes: 2 * attachments * (resourceBytes + 1024) };
    const tracer = new BasicTracerProvider().getTracer('bench');
    const variants = {
      none: undefined,
      noneAgain: undefined,
      noop: openTelemetry(),
      recording: openTelemetry({ tracer }),
    };
    const providers = await Promise.all(
      Object.entries(variants).map(async ([name, telemetry]) => {
        const tokenizer = createTiktokenTokenizer();
        const bench = await createBenchProvider({
          ...server,
          tokenizer,
          maxTokens: 8000,
          cache,
          ...(telemetry && { telemetry }),
        });
        return { name, bench, tokenizer, times: [] as number[] };
      }),
    );
    const turn = { pipelineId: 'bench' };
    for (const { bench } of providers) await bench.provider.provide(turn); // cold: fills the caches
    // The three whose ratios are the figures take turns in a fresh random order each round; the
    // recording provider (milliseconds of spans a turn) is measured after them, on its own: a turn
    // measured right after it paid for its garbage (with turns kept in microseconds, `none`, which
    // always followed it, measured 2.6x `noneAgain`).
    const compared = providers.filter((variant) => variant.name !== 'recording');
    const [comparedMedians] = await interleavedMedians(
      compared.map((variant) => () => variant.bench.provider.provide(turn)),
      1,
      rounds,
    );
    const recording = providers.find((variant) => variant.name === 'recording');
    for (let round = 0; round < rounds + 3 && recording; round++) {
      const started = performance.now();
      await recording.bench.provider.provide(turn);
      if (round >= 3) recording.times.push(performance.now() - started);
    }
    const median: Record<string, number | undefined> = Object.fromEntries(
      compared.map((variant, index) => [variant.name, comparedMedians?.[index]]),
    );
    if (recording) median.recording = percentile(recording.times, 50);
    const none = median.none ?? Number.NaN;
    for (const [name, ms] of Object.entries(median)) figures[`${name}Ms`] = round(ms ?? Number.NaN, 3);
    figures.noopRatio = round((median.noop ?? Number.NaN) / none, 3);
    figures.noiseRatio = round((median.noneAgain ?? Number.NaN) / none, 3);
    figures.recordingRatio = round((median.recording ?? Number.NaN) / none, 3);
    figures.rounds = rounds;
    for (const variant of providers) {
      await variant.bench.close();
      variant.tokenizer.dispose();
    }
  });
  const ratio = figures.noopRatio as number;
  return {
    ratio,
    target: 'noop within 5 % of none',
    met: ratio <= 1.05,
    attachments,
    resourceBytes,
    ...figures,
  };
}

export const readme: ReadmeRow = {
  what: 'warm turn at 100 pinned 64 KB resources: no telemetry vs `openTelemetry()` with no tracer registered vs a recording SDK tracer (interleaved medians)',
  result: (figures) =>
    `no tracer: **${figures.noopRatio}×** the uninstrumented turn (${figures.noopMs} vs ${figures.noneMs} ms; A/A noise ${figures.noiseRatio}×); recording every span: ${figures.recordingRatio}×`,
  target: 'no tracer ≤ 1.05×',
};
