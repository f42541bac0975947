// Runs every client scenario of the pinned MCP conformance suite, one at a time, against
// conformance/conformance-client.ts (the library's public API). Prints one line per scenario
// and a summary; exits 1 if any scenario fails. Usage: node conformance/run-conformance.mjs [scenario…]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const hook = join(root, 'conformance', 'register-node20-fs-hook.mjs');
const cli = join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const client = `node --import tsx ${join(root, 'conformance', 'conformance-client.ts')}`;
const conformance = (...args) =>
  spawnSync(process.execPath, ['--import', hook, cli, ...args], { cwd: root, encoding: 'utf8' });

const listed = conformance('list', '--client');
const all = [...listed.stdout.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]);
const scenarios = process.argv.length > 2 ? process.argv.slice(2) : all;
if (scenarios.length === 0) {
  console.error(listed.stderr || 'no client scenarios listed');
  process.exit(1);
}

const started = Date.now();
const failed = [];
for (const scenario of scenarios) {
  const output = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
  const begun = Date.now();
  const run = conformance('client', '--command', client, '--scenario', scenario, '--output-dir', output);
  const checks = readChecks(output);
  rmSync(output, { recursive: true, force: true });
  const failures = checks.filter((check) => check.status === 'FAILURE');
  const warnings = checks.filter((check) => check.status === 'WARNING');
  const passed = run.status === 0 && failures.length === 0;
  if (!passed) failed.push(scenario);
  const seconds = ((Date.now() - begun) / 1000).toFixed(1);
  console.log(
    `${passed ? 'pass' : 'FAIL'}  ${scenario}  (${checks.length - failures.length}/${checks.length} checks` +
      `${warnings.length > 0 ? `, ${warnings.length} warnings` : ''}, ${seconds} s)`,
  );
  if (!passed) {
    for (const check of failures)
      console.log(`        ${check.id}: ${check.errorMessage ?? check.description}`);
    if (failures.length === 0) console.log(run.stdout.split('\n').slice(-15).join('\n'), run.stderr);
  }
}
const total = ((Date.now() - started) / 1000).toFixed(0);
console.log(
  `conformance ${scenarios.length - failed.length}/${scenarios.length} client scenarios passed (${total} s)`,
);
process.exit(failed.length === 0 ? 0 : 1);

function readChecks(directory) {
  const found = [];
  const walk = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'checks.json') found.push(...JSON.parse(readFileSync(full, 'utf8')));
    }
  };
  walk(directory);
  return found;
}
