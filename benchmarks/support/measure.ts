/** Milliseconds `work` takes, as the median of `runs` runs after `warmup` unmeasured ones. */
export async function medianMs(work: () => Promise<unknown>, runs: number, warmup = 1): Promise<number> {
  for (let index = 0; index < warmup; index++) await work();
  const times: number[] = [];
  for (let index = 0; index < runs; index++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return percentile(times, 50);
}

/** The p-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Rounds for printing and JSON: figures keep three significant decimals at most. */
export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * Full GCs (the runner starts scenarios with --expose-gc; without it nothing happens), so a phase
 * or a memory reading does not carry what an earlier one left. A few rounds settle weak references
 * and finalizers a single one leaves behind.
 */
export function collectGarbage(rounds = 1): void {
  for (let round = 0; round < rounds; round++) (globalThis as { gc?: () => void }).gc?.();
}

/**
 * The machine's own p99/p50 for `turns` awaited calls of fixed, allocation-free CPU work lasting
 * about `ms` each, measured as a warm turn's tail is: what the tail of a workload that cannot
 * vary looks like on this machine now (other processes, frequency changes, the hypervisor). A
 * figure to read beside a measured p99/p50, never to subtract from it.
 */
export async function fixedWorkP99OverP50(ms: number, turns: number): Promise<number> {
  let sink = 0;
  const spin = (iterations: number) => {
    let value = sink;
    for (let index = 0; index < iterations; index++) value = (value * 31 + index) | 0;
    sink = value;
  };
  // Calibrated on this machine: iterations per millisecond, from the fastest of a few tries.
  const probe = 200_000;
  let fastest = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 5; attempt++) {
    const started = performance.now();
    spin(probe);
    fastest = Math.min(fastest, performance.now() - started);
  }
  const iterations = Math.max(1, Math.round((probe / Math.max(fastest, 1e-3)) * ms));
  const turn = async () => {
    await null;
    spin(iterations);
  };
  for (let index = 0; index < 50; index++) await turn();
  const times: number[] = [];
  for (let index = 0; index < turns; index++) {
    const started = performance.now();
    await turn();
    times.push(performance.now() - started);
  }
  return percentile(times, 99) / percentile(times, 50);
}
