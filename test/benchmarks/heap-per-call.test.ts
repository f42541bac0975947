import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { HeapPerCall } from '../../benchmarks/support/measure.js';

const run = promisify(execFile);
const probe = join(import.meta.dirname, 'heap-per-call-probe.ts');

async function heapOf(mode: 'garbage' | 'keeping'): Promise<HeapPerCall & { kept: number }> {
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', probe, mode]);
  return JSON.parse(stdout);
}

// Each call makes 1,000 objects of two small-integer fields and their array: a plain object
// takes 20 bytes on a 64-bit V8 with pointer compression, 40 without (Node's default), and the
// array 4 or 8 bytes an element, so a call allocates 24,000 to 48,000 bytes and a little more
// (its promise, the array's header).
describe('heapPerCall (benchmarks/support/measure.ts)', () => {
  it('counts what each call allocates, and nothing promoted when nothing outlives its call', async () => {
    const heap = await heapOf('garbage');
    expect(heap.allocatedBytes).toBeGreaterThanOrEqual(24_000);
    expect(heap.allocatedBytes).toBeLessThanOrEqual(52_000);
    expect(heap.scavengesPer1000).toBeGreaterThan(0);
    // What the old generation gained is the measurement's own (its record of each batch, the GC
    // entries): tens of bytes a call, an order under the 10 objects a call 'keeping' keeps.
    expect(heap.promotedBytes).toBeLessThan(50);
  }, 30_000);

  it('counts what outlives its call as promoted', async () => {
    const heap = await heapOf('keeping');
    expect(heap.kept).toBe(4000 * 10);
    // 10 objects a call kept for good, 200 to 400 bytes and their place in `kept`: all of it
    // promoted but what the last scavenge has not reached yet, never more than the call allocated.
    expect(heap.promotedBytes).toBeGreaterThanOrEqual(150);
    expect(heap.promotedBytes).toBeLessThanOrEqual(heap.allocatedBytes);
  }, 30_000);
});
