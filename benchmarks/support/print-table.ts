import { scenarios } from '../scenarios.js';
import type { BenchResults } from './results-file.js';

const bookkeeping = new Set(['target', 'met', 'commit', 'dirty', 'date', 'seconds', 'era']);

/** A figure's name ends with the MCP revision it was measured on (`ratioHttp@8k@2026-07-28`). */
const namesEra = /@\d{4}-\d{2}-\d{2}$/;

/** The run's figures as a plain table on stdout: the headline figure, target, met, the rest. */
export function printTable(results: BenchResults): void {
  const rows: string[][] = [['scenario', 'headline', 'target', 'met', 'seconds', 'details']];
  for (const scenario of scenarios) {
    const figures = results.scenarios[scenario.key];
    if (!figures) continue;
    // A scenario measured in both eras says which its unnamed figures are (`era`): each figure is
    // printed with its era, so no 2025 figure reads as a 2026-07-28 one or the other way round.
    const era = typeof figures.era === 'string' ? figures.era : undefined;
    const named = (name: string) => (era === undefined || namesEra.test(name) ? name : `${name}@${era}`);
    const rest = Object.entries(figures).filter(([name]) => !bookkeeping.has(name));
    // The figure the target is about, where a scenario has one by that name.
    const key = ['ratio', 'violations', 'reads', 'growthOverCap', 'p99Ms', 'max_block_ms_turn'].find(
      (name) => name in figures,
    );
    const headline = key !== undefined ? ([key, figures[key]] as const) : rest[0];
    rows.push([
      scenario.key,
      headline ? `${named(headline[0])}=${headline[1]}` : '',
      String(figures.target ?? ''),
      String(figures.met ?? ''),
      String(figures.seconds ?? ''),
      rest
        .filter(([name]) => name !== headline?.[0])
        .map(([name, value]) => `${named(name)}=${value}`)
        .join(' '),
    ]);
  }
  const widths =
    rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  for (const row of rows) {
    process.stdout.write(
      `${row.map((cell, column) => cell.padEnd(column === row.length - 1 ? 0 : (widths[column] ?? 0))).join('  ')}\n`,
    );
  }
  printGuard(results);
}

/** The turn's performance guard (issue 36): four figures against their targets, reported, never asserted. */
const guard = [
  {
    label: 'repeated turn at 100 pins',
    scenario: 'turnGuard',
    figure: 'repeatedTurnUs',
    unit: ' µs',
    most: 20,
  },
  { label: 'full warm turn', scenario: 'turnGuard', figure: 'fullWarmTurnUs', unit: ' µs', most: 150 },
  { label: 'coldVsFloor', scenario: 'coldVsFloor', figure: 'ratio', unit: '×', most: 1.2 },
  { label: 'budget violations', scenario: 'budget', figure: 'violations', unit: '', most: 0 },
] as const;

function printGuard(results: BenchResults): void {
  const lines = guard.flatMap(({ label, scenario, figure, unit, most }) => {
    const figures = results.scenarios[scenario];
    const value = figures?.[figure];
    if (typeof value !== 'number') return [];
    const met = value <= most ? 'met' : 'MISSED';
    const era = typeof figures?.era === 'string' ? `  (${figures.era})` : '';
    return [`  ${label.padEnd(26)} ${`${value}${unit}`.padStart(10)}  target ≤ ${most}${unit}  ${met}${era}`];
  });
  if (lines.length > 0) process.stdout.write(`\nguard (issue 36):\n${lines.join('\n')}\n`);
}
