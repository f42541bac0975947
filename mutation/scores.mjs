// `npm run mutate:scores [-- --contributing]`: the mutation score per core folder, from the recorded
// runs in mutation/incremental/<folder>.json; --contributing rewrites CONTRIBUTING.md's table.
// Score = detected / valid = (killed + timeout) / (killed + timeout + survived + no coverage), as
// StrykerJS counts it; compile errors and ignored mutants are not valid mutants.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { coreFolders } from '../stryker.config.mjs';

const root = join(import.meta.dirname, '..');
const start = '<!-- mutation-table:start (npm run mutate:scores -- --contributing writes this part) -->';
const end = '<!-- mutation-table:end -->';

const rows = [];
for (const folder of coreFolders) {
  const path = join(root, 'mutation', 'incremental', `${folder}.json`);
  if (!existsSync(path)) {
    rows.push({ folder, measured: false });
    continue;
  }
  const report = JSON.parse(readFileSync(path, 'utf8'));
  const counts = {
    Killed: 0,
    Timeout: 0,
    Survived: 0,
    NoCoverage: 0,
    CompileError: 0,
    RuntimeError: 0,
    Ignored: 0,
  };
  let stale = 0;
  for (const [file, result] of Object.entries(report.files)) {
    const current = existsSync(join(root, file)) ? readFileSync(join(root, file), 'utf8') : undefined;
    if (current !== result.source) stale++;
    for (const mutant of result.mutants) counts[mutant.status] = (counts[mutant.status] ?? 0) + 1;
  }
  const detected = counts.Killed + counts.Timeout;
  const valid = detected + counts.Survived + counts.NoCoverage;
  rows.push({
    folder,
    measured: true,
    counts,
    detected,
    valid,
    stale,
    files: Object.keys(report.files).length,
  });
}

const percent = (row) => (row.valid === 0 ? '–' : `${((100 * row.detected) / row.valid).toFixed(1)} %`);
const table = [
  '| folder | mutants (valid) | killed | timeout | survived | no coverage | score |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map((row) =>
    row.measured
      ? `| \`src/${row.folder}/\` | ${row.valid} | ${row.counts.Killed} | ${row.counts.Timeout} | ${row.counts.Survived} | ${row.counts.NoCoverage} | **${percent(row)}**${row.stale > 0 ? ` (${row.stale} of ${row.files} files changed since)` : ''} |`
      : `| \`src/${row.folder}/\` | not measured yet | | | | | |`,
  ),
].join('\n');
process.stdout.write(`${table}\n`);

if (process.argv.includes('--contributing')) {
  const readmePath = join(root, 'CONTRIBUTING.md');
  const readme = readFileSync(readmePath, 'utf8');
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`CONTRIBUTING.md has no ${start} … ${end} section`);
  writeFileSync(readmePath, `${readme.slice(0, from + start.length)}\n${table}\n${readme.slice(to)}`);
  execFileSync(join(root, 'node_modules', '.bin', 'biome'), ['format', '--write', 'CONTRIBUTING.md'], {
    cwd: root,
    stdio: 'ignore',
  });
}
