import { constants, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

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
 * or a memory reading does not carry what an earlier one left. A few rounds settle weak
 * references a single one leaves behind; finalizers need the event loop (see settledHeap).
 */
export function collectGarbage(rounds = 1): void {
  for (let round = 0; round < rounds; round++) (globalThis as { gc?: () => void }).gc?.();
}

/**
 * The heap in use once garbage is gone, finalizers included: FinalizationRegistry callbacks run
 * as tasks after the collection that found their targets dead, and what they let go is freed by
 * the next one. Fetch on Node 20 holds each request's signal and listener until its finalizer
 * runs: read right after `collectGarbage(3)`, 6,000 first turns (caches as small as they go)
 * showed 2.8 MiB more than this.
 */
export async function settledHeap(): Promise<number> {
  for (let round = 0; round < 5; round++) {
    collectGarbage();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  collectGarbage(2);
  return process.memoryUsage().heapUsed;
}

/** One window of a tail measurement: the p50 and p99 of `turns` awaited calls, in ms. */
export interface TailWindow {
  readonly p50: number;
  readonly p99: number;
}

/**
 * The p50 and p99 of `work` over `windows` windows of `turns` awaited calls each, and, right after
 * each, those of fixed, allocation-free CPU work lasting about the first window's p50, timed the
 * same way: the machine's own tail for work that cannot vary, at the same moments (other
 * processes, frequency changes, the hypervisor). One window's p99 is its third-slowest of 200
 * calls, which one noisy second on a shared machine decides; several windows show how much of a
 * tail is the work's and how much the moment's. The fixed work is a figure to read beside the
 * work's, never to subtract from it.
 */
export async function tailWindows(
  work: () => Promise<unknown>,
  windows: number,
  turns: number,
): Promise<{ work: TailWindow[]; fixed: TailWindow[] }> {
  const measured: TailWindow[] = [];
  const fixed: TailWindow[] = [];
  let fixedWork: (() => Promise<void>) | undefined;
  for (let index = 0; index < windows; index++) {
    const window = await timeWindow(work, turns);
    measured.push(window);
    fixedWork ??= fixedCpuWork(window.p50);
    fixed.push(await timeWindow(fixedWork, turns));
  }
  return { work: measured, fixed };
}

/** The window whose p99/p50 is the median of all windows' (the upper median for an even count). */
export function medianWindow(windows: readonly TailWindow[]): TailWindow {
  const sorted = [...windows].sort((a, b) => a.p99 / a.p50 - b.p99 / b.p50);
  const median = sorted[Math.floor(sorted.length / 2)];
  if (!median) throw new Error('medianWindow needs at least one window');
  return median;
}

/**
 * The median ms of each of `works` in each of `windows` windows of `rounds` rounds, a round
 * calling every work once in a fresh random order (after 3 unmeasured rounds per window): drift in
 * the machine's load hits every work alike, no work is always first or always follows the same
 * other one (a fixed rotation keeps the cyclic order), and each window gives one comparison of
 * them. `result[window][work]`.
 */
export async function interleavedMedians(
  works: readonly (() => Promise<unknown>)[],
  windows: number,
  rounds: number,
): Promise<number[][]> {
  const medians: number[][] = [];
  const order = works.map((_, index) => index);
  for (let window = 0; window < windows; window++) {
    const times = works.map((): number[] => []);
    for (let round = 0; round < rounds + 3; round++) {
      shuffle(order);
      for (const index of order) {
        const started = performance.now();
        await works[index]?.();
        if (round >= 3) times[index]?.push(performance.now() - started);
      }
    }
    medians.push(times.map((workTimes) => percentile(workTimes, 50)));
  }
  return medians;
}

/** What awaited calls of some work cost the heap, per call. */
export interface HeapPerCall {
  /** Bytes allocated in the young generation (batches with no GC in them; median batch). */
  readonly allocatedBytes: number;
  /** Bytes the old generation grew by over all the calls: what scavenges promoted. */
  readonly promotedBytes: number;
  /** Scavenges per 1,000 calls. */
  readonly scavengesPer1000: number;
}

/**
 * The heap cost of `calls` awaited calls of `work`, after a full GC: young-generation bytes
 * allocated per call, read from the young generation's size before and after batches of
 * `batch` calls, only from batches no GC fell in (the median batch); old-generation growth per
 * call over all of them (what survived scavenges: promoted, or allocated old); scavenges per
 * 1,000 calls. Throws if a full GC fell among the calls, which would hide promoted bytes.
 */
export async function heapPerCall(
  work: () => Promise<unknown>,
  calls: number,
  batch = 50,
): Promise<HeapPerCall> {
  collectGarbage();
  const collections: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => collections.push(...list.getEntries()));
  observer.observe({ entryTypes: ['gc'] });
  try {
    const batches: { started: number; ended: number; bytes: number }[] = [];
    const oldBefore = generationBytes('old');
    for (let done = 0; done < calls; done += batch) {
      const young = generationBytes('young');
      const started = performance.now();
      for (let index = 0; index < batch; index++) await work();
      batches.push({ started, ended: performance.now(), bytes: generationBytes('young') - young });
    }
    const oldGrowth = generationBytes('old') - oldBefore;
    // GC entries are delivered on a later turn of the event loop.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const kinds = collections.map(
      (entry) => (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind,
    );
    if (kinds.some((kind) => kind !== constants.NODE_PERFORMANCE_GC_MINOR))
      throw new Error(
        `heapPerCall: a full GC fell among the calls; old-generation growth would not be what was promoted (GC kinds: ${kinds.join(', ')})`,
      );
    const clean = batches.filter(
      ({ started, ended }) =>
        !collections.some((entry) => entry.startTime < ended && entry.startTime + entry.duration > started),
    );
    return {
      allocatedBytes: percentile(
        clean.map(({ bytes }) => bytes / batch),
        50,
      ),
      promotedBytes: oldGrowth / (batches.length * batch),
      scavengesPer1000: (1000 * collections.length) / (batches.length * batch),
    };
  } finally {
    observer.disconnect();
  }
}

// --- Internal helpers ---

async function timeWindow(work: () => Promise<unknown>, turns: number): Promise<TailWindow> {
  // Unmeasured first: what ran in between (the other kind of work) leaves the caches cold.
  for (let index = 0; index < 20; index++) await work();
  const times: number[] = [];
  for (let index = 0; index < turns; index++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

let sink = 0;

/** Awaited, allocation-free CPU work of about `ms`, calibrated on this machine now. */
function fixedCpuWork(ms: number): () => Promise<void> {
  const spin = (iterations: number) => {
    let value = sink;
    for (let index = 0; index < iterations; index++) value = (value * 31 + index) | 0;
    sink = value;
  };
  // Iterations per millisecond, from the fastest of a few tries.
  const probe = 200_000;
  let fastest = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 5; attempt++) {
    const started = performance.now();
    spin(probe);
    fastest = Math.min(fastest, performance.now() - started);
  }
  const iterations = Math.max(1, Math.round((probe / Math.max(fastest, 1e-3)) * ms));
  return async () => {
    await null;
    spin(iterations);
  };
}

/** Fisher–Yates, in place. */
function shuffle(values: number[]): void {
  for (let index = values.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [values[index], values[other]] = [values[other] as number, values[index] as number];
  }
}

/** Bytes used in the young generation (new space and its large objects) or in the old one. */
function generationBytes(generation: 'young' | 'old'): number {
  let bytes = 0;
  for (const space of getHeapSpaceStatistics()) {
    const young = space.space_name === 'new_space' || space.space_name === 'new_large_object_space';
    if (young === (generation === 'young')) bytes += space.space_used_size;
  }
  return bytes;
}
