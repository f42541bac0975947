import { ContextError, type InjectionTrace } from '../../src/index.js';

/** Heap after a full GC and RSS at one moment of the soak. */
export interface MemoryPoint {
  readonly label: string;
  readonly heapUsed: number;
  readonly rss: number;
  /** Memory outside the JS heap: ArrayBuffers, tiktoken's WASM memory, Buffers. */
  readonly external: number;
}

/** `collect`: three full GCs first, so the heap figure is what is alive (needs --expose-gc). */
export function memoryPoint(label: string, collect = false): MemoryPoint {
  if (collect) for (let round = 0; round < 3; round++) globalThis.gc?.();
  const { heapUsed, rss, external } = process.memoryUsage();
  return { label, heapUsed, rss, external };
}

/**
 * What a soak saw: turns, trace statuses, error codes, cache outcomes, anything thrown or
 * unhandled, and what counts as a failure of the run.
 */
export function createSoakTally() {
  let turns = 0;
  let slowestTurnMs = 0;
  const statuses = new Map<string, number>();
  const errorCodes = new Map<string, number>();
  const cache = new Map<string, number>();
  const thrown = new Map<string, number>();
  const untyped: string[] = [];
  const unhandled: string[] = [];
  const fixtureFailures: string[] = [];
  const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

  return {
    turn(trace: InjectionTrace): void {
      turns++;
      slowestTurnMs = Math.max(slowestTurnMs, Math.round(trace.durationMs));
      for (const entry of trace.entries) {
        add(statuses, entry.status);
        add(cache, entry.cache);
        if (entry.error) {
          add(errorCodes, entry.error.code);
          // INTERNAL_ERROR is what an error no code describes becomes: untyped.
          if (entry.error.code === 'INTERNAL_ERROR' && untyped.length < 5) {
            untyped.push(`${entry.server} ${entry.uri}: ${entry.error.message}`);
          }
        }
      }
    },
    /** provide() itself rejected: only ever a ContextError, and none is expected here. */
    thrown(error: unknown): void {
      const code = ContextError.isInstance(error) ? error.code : 'untyped';
      add(thrown, code);
      if (untyped.length < 5) untyped.push(`provide() threw ${code}: ${String(error)}`);
    },
    unhandled(kind: string, reason: unknown): void {
      if (unhandled.length < 5)
        unhandled.push(`${kind}: ${reason instanceof Error ? reason.stack : String(reason)}`);
      else unhandled.push(kind);
    },
    /** A fixture's own restart or notification failed (the soak's machinery, reported apart). */
    fixtureFailure(reason: unknown): void {
      fixtureFailures.push(String(reason));
    },
    failures(): string[] {
      return [
        ...(turns === 0 ? ['no turn completed'] : []),
        ...(unhandled.length > 0
          ? [`${unhandled.length} unhandled: ${unhandled.slice(0, 5).join('; ')}`]
          : []),
        ...(untyped.length > 0 || thrown.size > 0 ? [`untyped or thrown errors: ${untyped.join('; ')}`] : []),
      ];
    },
    report(facts: {
      seconds: number;
      loadAverage: number[];
      fleet: Record<string, number>;
      reads: number;
      sessionsAtEnd: Record<string, number>;
      statesAtEnd: Record<string, string>;
      memory: readonly MemoryPoint[];
      heapGrowthMiB: number;
      toleranceMiB: number;
    }): string {
      const hits = cache.get('hit') ?? 0;
      const looked = hits + (cache.get('miss') ?? 0) + (cache.get('stale') ?? 0);
      const mib = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);
      const line = (map: Map<string, number>) =>
        [...map]
          .sort((a, b) => b[1] - a[1])
          .map(([key, count]) => `${key} ${count}`)
          .join(', ') || 'none';
      return [
        `soak: ${facts.seconds} s of turning, load average ${facts.loadAverage.join(' ')}`,
        `turns: ${turns} (slowest ${slowestTurnMs} ms); provide() rejected: ${line(thrown)}`,
        `attachments by status: ${line(statuses)}`,
        `errors by code: ${line(errorCodes)}`,
        `reads answered by in-process and HTTP servers: ${facts.reads}; cache hit ratio ${looked === 0 ? 'n/a' : (hits / looked).toFixed(2)} (${line(cache)})`,
        `chaos: ${Object.entries(facts.fleet)
          .map(([key, count]) => `${key} ${count}`)
          .join(', ')}; fixture hiccups ${fixtureFailures.length}`,
        `server sessions open at the end: ${Object.entries(facts.sessionsAtEnd)
          .map(([key, count]) => `${key} ${count}`)
          .join(', ')}`,
        `registry at the end: ${Object.entries(facts.statesAtEnd)
          .map(([server, state]) => `${server} ${state}`)
          .join(', ')}`,
        `unhandled rejections/exceptions: ${unhandled.length}`,
        'memory (MiB): heap after GC / external (WASM, buffers) / RSS',
        ...facts.memory.map(
          (point) =>
            `  ${point.label.padEnd(14)} ${mib(point.heapUsed).padStart(7)} / ${mib(point.external).padStart(7)} / ${mib(point.rss).padStart(7)}`,
        ),
        `heap growth after warm-up: ${facts.heapGrowthMiB} MiB (tolerance ${facts.toleranceMiB} MiB)`,
      ].join('\n');
    },
  };
}
