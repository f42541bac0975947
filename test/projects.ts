import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Which vitest project a test file belongs to, read from what it imports (its own imports and
 * those of the test-support files it imports), so a new test lands in the right project without
 * a list to keep:
 * - `e2e`: child processes, databases, Chromium, the CLI, the package as published;
 * - `integration`: in-process MCP servers, loopback sockets, SQLite files;
 * - `unit`: nothing of the above (pure code, the tokenizer included).
 */
export type TestProject = 'unit' | 'integration' | 'e2e';

const thisFile = fileURLToPath(import.meta.url).replace(/\.js$/, '.ts');

const e2eSigns = [
  /from 'node:child_process'/,
  // A child process the test starts without child_process: a server config running node, or a
  // fixture started over stdio.
  /process\.execPath/,
  /\(\s*'stdio'/,
  // The built CLI (test/cli/support/build-cli.ts provides it to the e2e project only).
  /inject\('cliEntry'\)/,
  /from 'pg'/,
  /from 'ioredis'/,
  /from 'playwright-core'/,
  /serve-stdio/,
  // The modern fixture over stdio (fixtures/modern/modern-stdio-server.ts starts serve-stdio.ts).
  /modern-stdio-server/,
  /StdioClientTransport|client\/stdio/,
  /postgres-test-database|redis-test|throwaway-postgres/,
];

const integrationSigns = [
  /fixtures\//,
  /@modelcontextprotocol\/sdk\/server/,
  /inMemory/,
  /from 'node:(http|https|net|tls)'/,
  /better-sqlite3|sqlite-attachment-store/,
];

/** The project of one test file (a path relative to the repository root). */
export function projectOf(root: string, file: string): TestProject {
  const sources = sourcesOf(resolve(root, file), resolve(root, 'test'));
  if (sources.some((source) => e2eSigns.some((sign) => sign.test(source)))) return 'e2e';
  if (sources.some((source) => integrationSigns.some((sign) => sign.test(source)))) return 'integration';
  return 'unit';
}

/** Every test file of the repository, by project. */
export function testProjects(root: string): Record<TestProject, string[]> {
  const projects: Record<TestProject, string[]> = { unit: [], integration: [], e2e: [] };
  const files = readdirSync(join(root, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `test/${name.split('\\').join('/')}`)
    .sort();
  for (const file of files) {
    projects[projectOf(root, file)].push(file);
  }
  return projects;
}

/** The file's text and that of every file under `within` it imports, transitively. */
function sourcesOf(file: string, within: string): string[] {
  const seen = new Set<string>();
  const pending = [file];
  const sources: string[] = [];
  while (pending.length > 0) {
    const next = pending.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    // Double-quoted strings are not read: a test of this file writes sample sources in them
    // (this code base's own strings are single-quoted).
    const source = readFileSync(next, 'utf8').replace(/"(?:[^"\\\n]|\\.)*"/g, '""');
    sources.push(source);
    for (const [, specifier] of source.matchAll(/from '(\.[^']+)'/g)) {
      const target = join(dirname(next), (specifier as string).replace(/\.js$/, '.ts'));
      // Not this file: its signs would match themselves (test/projects.test.ts imports it).
      if (!relative(within, target).startsWith('..') && target !== thisFile) pending.push(target);
    }
  }
  return sources;
}
