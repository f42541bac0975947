import { mkdir, writeFile } from 'node:fs/promises';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Figures = Record<string, number | string | boolean>;
interface Scenario {
  readonly key: string;
  readonly file: string;
}

// One key per scenario in latest.json; each module exports run({ quick }) → its figures.
const scenarios: readonly Scenario[] = [
  { key: 'warmVsNaive', file: 'warm-vs-naive.ts' },
  { key: 'coldVsFloor', file: 'cold-vs-floor.ts' },
  { key: 'sizeScaling', file: 'size-scaling.ts' },
  { key: 'budget', file: 'budget.ts' },
  { key: 'concurrency', file: 'concurrency.ts' },
  { key: 'memory', file: 'memory.ts' },
  { key: 'invalidation', file: 'invalidation.ts' },
  { key: 'countingThroughput', file: 'counting-throughput.ts' },
  { key: 'adversarial', file: 'adversarial.ts' },
  { key: 'eventLoop', file: 'event-loop.ts' },
];

const here = dirname(fileURLToPath(import.meta.url));

async function main(argv: readonly string[]): Promise<void> {
  const quick = argv.includes('--quick');
  const only = argv
    .find((argument) => argument.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const results: Record<string, unknown> = {
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      node: process.version,
      platform: process.platform,
    },
    mode: quick ? 'quick' : 'full',
    date: new Date().toISOString(),
  };
  for (const scenario of scenarios) {
    if (only && !only.includes(scenario.key)) continue;
    const started = performance.now();
    process.stderr.write(`running ${scenario.key}…\n`);
    const module = (await import(join(here, 'scenarios', scenario.file))) as {
      run: (options: { quick: boolean }) => Promise<Figures>;
    };
    const figures = await module.run({ quick });
    results[scenario.key] = { ...figures, seconds: Math.round((performance.now() - started) / 100) / 10 };
  }
  printTable(results);
  const output = join(here, 'results', 'latest.json');
  await mkdir(dirname(output), { recursive: true });
  await writeFile(output, `${JSON.stringify(results, null, 2)}\n`);
  process.stdout.write(`\nwrote ${output}\n`);
}

function printTable(results: Record<string, unknown>): void {
  const rows: string[][] = [['scenario', 'headline', 'target', 'met', 'details']];
  for (const scenario of scenarios) {
    const figures = results[scenario.key] as Figures | undefined;
    if (!figures) continue;
    const { target, met, ...rest } = figures;
    // The figure the target is about, where a scenario has one by that name.
    const key = ['ratio', 'violations', 'reads', 'growthOverCap', 'p99Ms', 'max_block_ms_turn'].find(
      (name) => name in rest,
    );
    const headline = key !== undefined ? ([key, rest[key]] as const) : Object.entries(rest)[0];
    const details = Object.entries(rest)
      .filter(([name]) => name !== headline?.[0])
      .map(([name, value]) => `${name}=${value}`)
      .join(' ');
    rows.push([
      scenario.key,
      headline ? `${headline[0]}=${headline[1]}` : '',
      String(target ?? ''),
      String(met ?? ''),
      details,
    ]);
  }
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  for (const row of rows) {
    process.stdout.write(
      `${row.map((cell, column) => cell.padEnd(column === row.length - 1 ? 0 : (widths[column] ?? 0))).join('  ')}\n`,
    );
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(
    `benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exitCode = 1;
});
