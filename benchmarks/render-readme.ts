import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { scenarios } from './scenarios.js';
import { type BenchResults, resultsPath } from './support/results-file.js';
import type { ScenarioModule } from './support/scenario.js';

const root = join(import.meta.dirname, '..');
const start = '<!-- bench-table:start (npm run bench:readme writes this part from latest.json) -->';
const end = '<!-- bench-table:end -->';

/**
 * `npm run bench:readme`: rewrites the README's benchmark table from
 * benchmarks/results/latest.json (a full run; quick figures never reach the README), with the
 * commit each figure was measured at.
 */
async function main(): Promise<void> {
  const results = JSON.parse(await readFile(resultsPath(root, false), 'utf8')) as BenchResults;
  if (results.mode !== 'full') throw new Error('latest.json is not from a full run');
  const readmePath = join(root, 'README.md');
  const readme = await readFile(readmePath, 'utf8');
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md has no ${start} … ${end} section`);
  const table = await renderTable(results);
  await writeFile(readmePath, `${readme.slice(0, from + start.length)}\n${table}\n${readme.slice(to)}`);
  // Biome lays out markdown tables by display width (emoji are two columns): let it pad.
  execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', '--write', 'README.md'], {
    cwd: root,
    stdio: 'ignore',
  });
  process.stdout.write(`README.md: benchmark table from ${resultsPath(root, false)}\n`);
}

async function renderTable(results: BenchResults): Promise<string> {
  const rows: string[][] = [['scenario', 'what is measured', 'result', 'target']];
  const commits = new Set<string>();
  const cpus = new Set<string>();
  for (const scenario of scenarios) {
    const figures = results.scenarios[scenario.key];
    if (!figures) continue;
    const { readme } = (await import(
      join(import.meta.dirname, 'scenarios', scenario.file)
    )) as ScenarioModule;
    commits.add(`${String(figures.commit).slice(0, 7)}${figures.dirty ? ' (uncommitted changes)' : ''}`);
    cpus.add(typeof figures.cpu === 'string' ? figures.cpu : 'a machine not recorded');
    rows.push([
      `\`${scenario.key}\``,
      readme.what,
      readme.result(figures),
      `${readme.target} ${figures.met === true ? '✅' : figures.met === false ? '❌' : ''}`.trim(),
    ]);
  }
  const { machine } = results;
  const at =
    commits.size === 1
      ? `commit ${[...commits][0]}`
      : `several commits (${[...commits].join(', ')}; each scenario's is in the JSON)`;
  const load =
    machine.loadAverage1m === undefined ? '' : `, load average ${machine.loadAverage1m} at the start`;
  // Scenarios re-run alone (--only) may have run on another machine than the rest.
  const on =
    cpus.size === 1 && cpus.has(machine.cpu) ? machine.cpu : `several machines (${[...cpus].join(', ')})`;
  const heading =
    `Latest full run (\`npm run bench\`, ${results.date.slice(0, 10)}, ${on}, ${machine.cores} cores, ` +
    `Node ${machine.node}${load}, measured at ${at}; the JSON is in \`benchmarks/results/latest.json\`):`;
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  const [header, ...body] = rows;
  return [
    heading,
    '',
    line(header ?? []),
    line(widths.map((width) => '-'.repeat(width))),
    ...body.map(line),
  ].join('\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
