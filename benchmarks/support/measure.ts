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
