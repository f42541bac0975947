import { join } from 'node:path';
import type { Figures } from './scenario.js';

/** benchmarks/results/latest.json (full runs) or latest-quick.json (`--quick`: CI's smoke run). */
export interface BenchResults {
  machine: { cpu: string; cores: number; node: string; platform: string; loadAverage1m?: number };
  mode: 'quick' | 'full';
  /** When the run that last wrote the file started. */
  date: string;
  /** The commit that run measured, and whether the tree had uncommitted changes. */
  commit: string;
  dirty: boolean;
  /** Figures by scenario key; each carries the commit, dirty flag and date it was measured at. */
  scenarios: Record<string, Figures>;
}

export function resultsPath(root: string, quick: boolean): string {
  return join(root, 'benchmarks', 'results', quick ? 'latest-quick.json' : 'latest.json');
}
