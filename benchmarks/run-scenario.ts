import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ScenarioModule } from './support/scenario.js';

// One scenario in this process: `run-scenario.ts <file> <output.json> [--quick]`. benchmarks/run.ts
// starts one process per scenario so that none runs on a heap, JIT or caches another one left.
async function main([file, output, ...flags]: readonly string[]): Promise<void> {
  if (!file || !output) throw new Error('usage: run-scenario.ts <scenario file> <output.json> [--quick]');
  const module = (await import(join(import.meta.dirname, 'scenarios', file))) as ScenarioModule;
  const started = performance.now();
  const figures = await module.run({ quick: flags.includes('--quick') });
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  await writeFile(output, JSON.stringify({ ...figures, seconds }));
}

main(process.argv.slice(2)).then(
  // Exit even if a scenario left a handle open: its figures are written.
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
