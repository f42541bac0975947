/**
 * Every scenario, in the fixed order the runner starts them. Each runs in its own Node process
 * (benchmarks/run-scenario.ts), so no scenario's heap, JIT state, caches or loaded encoders can
 * change another's figures; the order only decides what is printed first.
 */
export const scenarios = [
  { key: 'turnGuard', file: 'turn-guard.ts' },
  { key: 'warmVsNaive', file: 'warm-vs-naive.ts' },
  { key: 'coldVsFloor', file: 'cold-vs-floor.ts' },
  { key: 'sizeScaling', file: 'size-scaling.ts' },
  { key: 'budget', file: 'budget.ts' },
  { key: 'concurrency', file: 'concurrency.ts' },
  { key: 'memory', file: 'memory.ts' },
  { key: 'invalidation', file: 'invalidation.ts' },
  { key: 'countingThroughput', file: 'counting-throughput.ts' },
  { key: 'familyCounting', file: 'family-counting.ts' },
  { key: 'adversarial', file: 'adversarial.ts' },
  { key: 'adversarialLarge', file: 'adversarial-large.ts' },
  { key: 'eventLoop', file: 'event-loop.ts' },
  { key: 'replicas', file: 'replicas.ts' },
  { key: 'telemetryOverhead', file: 'telemetry-overhead.ts' },
  { key: 'service', file: 'service.ts' },
  { key: 'hostLike', file: 'host-like.ts' },
  { key: 'footprint', file: 'footprint.ts' },
  { key: 'cliStart', file: 'cli-start.ts' },
] as const satisfies readonly { key: string; file: string }[];

export type ScenarioKey = (typeof scenarios)[number]['key'];
