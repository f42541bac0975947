import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenarios } from './scenarios.js';
import { measuredAt } from './support/measured-at.js';
import { printTable } from './support/print-table.js';
import { type BenchResults, resultsPath } from './support/results-file.js';
import type { Figures } from './support/scenario.js';

const root = join(import.meta.dirname, '..');

/**
 * `npm run bench [-- --quick] [-- --only=key,key]`: each scenario in its own Node process, in the
 * fixed order of benchmarks/scenarios.ts. A full run writes benchmarks/results/latest.json (with
 * `--only`, the named scenarios replace theirs in it and the others keep their own commit); a
 * quick run writes latest-quick.json and never touches latest.json.
 */
async function main(argv: readonly string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const only = argv
    .find((argument) => argument.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const unknown = only?.filter((key) => !scenarios.some((scenario) => scenario.key === key)) ?? [];
  if (unknown.length > 0) throw new Error(`unknown scenario(s): ${unknown.join(', ')}`);
  const at = measuredAt(root);
  const output = resultsPath(root, quick);
  // A partial full run updates the figures it measured and keeps the rest, each with its commit.
  const previous = only && !quick ? await readPrevious(output) : undefined;
  const results: BenchResults = {
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      node: process.version,
      platform: process.platform,
      // The machine may be shared: a load above the core count slows every figure.
      loadAverage1m: Math.round((loadavg()[0] ?? 0) * 10) / 10,
    },
    mode: quick ? 'quick' : 'full',
    date: new Date().toISOString(),
    ...at,
    // A scenario no longer in the suite is not carried over.
    scenarios: Object.fromEntries(
      Object.entries(previous?.scenarios ?? {}).filter(([key]) =>
        scenarios.some((scenario) => scenario.key === key),
      ),
    ),
  };
  const failed: string[] = [];
  const scratch = await mkdtemp(join(tmpdir(), 'bench-'));
  try {
    for (const scenario of scenarios) {
      if (only && !only.includes(scenario.key)) continue;
      process.stderr.write(`running ${scenario.key}…\n`);
      const file = join(scratch, `${scenario.key}.json`);
      const code = await runInOwnProcess(scenario.file, file, quick);
      if (code !== 0) {
        failed.push(scenario.key);
        continue;
      }
      const figures = JSON.parse(await readFile(file, 'utf8')) as Figures;
      results.scenarios[scenario.key] = {
        ...figures,
        commit: at.commit,
        dirty: at.dirty,
        date: results.date,
        // An --only run keeps the others' figures, which another machine may have measured.
        cpu: results.machine.cpu,
      };
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  printTable(results);
  await writeFile(output, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nwrote ${output}${at.dirty ? ' (measured with uncommitted changes)' : ''}\n`);
  if (failed.length > 0) throw new Error(`scenario(s) failed: ${failed.join(', ')}`);
}

// --- Internal helpers ---

function runInOwnProcess(file: string, output: string, quick: boolean): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      join(import.meta.dirname, 'run-scenario.ts'),
      file,
      output,
      ...(quick ? ['--quick'] : []),
    ],
    { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function readPrevious(path: string): Promise<BenchResults | undefined> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as BenchResults;
  } catch {
    return undefined;
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(
    `benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
