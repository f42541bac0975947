// Run by heap-per-call.test.ts in a process of its own, started with --expose-gc as benchmarks
// are (a test worker's heap is small and still growing: full GCs fall among the calls).
// Prints heapPerCall's figures for work that keeps nothing ('garbage') or 10 objects a call ('keeping').
import { heapPerCall } from '../../benchmarks/support/measure.js';

const kept: object[] = [];
const mode = process.argv[2];
const work = async () => {
  const items = new Array(1000);
  for (let index = 0; index < 1000; index++) items[index] = { index, twice: index * 2 };
  if (mode === 'keeping') for (let index = 0; index < 1000; index += 100) kept.push(items[index]);
};
const heap = await heapPerCall(work, 4000);
process.stdout.write(JSON.stringify({ ...heap, kept: kept.length }));
