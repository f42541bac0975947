import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, inject, it, onTestFinished } from 'vitest';

const recorder = fileURLToPath(new URL('./support/record-loaded-modules.mjs', import.meta.url));

/** The built CLI run with `words`, and every module URL its process loaded. */
async function loadedBy(words: readonly string[]): Promise<{ code: number; modules: string[] }> {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-context-lazy-'));
  onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
  const record = join(directory, 'modules.txt');
  const code = await new Promise<number>((resolve) => {
    execFile(
      process.execPath,
      ['--import', recorder, inject('cliEntry'), ...words],
      { cwd: directory, env: { ...process.env, RECORD_LOADED_MODULES: record }, timeout: 60_000 },
      (error) => resolve(error ? Number((error as { code?: number }).code ?? 1) : 0),
    );
  });
  return { code, modules: readFileSync(record, 'utf8').trimEnd().split('\n') };
}

const serviceModules = (modules: readonly string[]) => modules.filter((url) => url.includes('/src/service/'));

/** The built package's root: its `src/cli/main.js` is the CLI entry. */
const buildRoot = () => pathToFileURL(join(dirname(inject('cliEntry')), '../..')).href;

/** The modules of the package a run loaded, as paths under the build (`src/cli/main.js`). */
const packageModules = (modules: readonly string[]) =>
  modules.flatMap((url) => (url.startsWith(`${buildRoot()}/`) ? [url.slice(buildRoot().length + 1)] : []));

/** Files loaded from outside the package: its dependencies (node: built-ins are not files). */
const dependencyModules = (modules: readonly string[]) =>
  modules.filter((url) => url.startsWith('file:') && !url.startsWith(`${buildRoot()}/`));

/** The library's folders a command that only answers from its declarations never needs. */
const libraryFolders = [
  'mcp',
  'provider',
  'fetch',
  'budget',
  'attachments',
  'cache',
  'convert',
  'render',
  'policy',
  'config',
  'credentials',
  'service',
  'trace',
  'cli/commands',
];

describe('--help, --version and usage errors load none of the library', () => {
  it.each([
    ['--help', 0],
    ['--version', 0],
    ['pin --help', 0],
    ['provide --help', 0],
    ['pin', 2],
    ['bogus', 2],
    ['--bogus', 2],
    ['pin ls --all', 2],
  ])(
    '`mcp-context %s` (exit %i) loads only the CLI’s declarations: no tiktoken, no SDK',
    async (command, exit) => {
      const { code, modules } = await loadedBy(command.split(' '));
      expect(code).toBe(exit);
      const loaded = packageModules(modules);
      expect(loaded).toContain('src/cli/cli-commands.js');
      for (const folder of libraryFolders) {
        expect(
          loaded.filter((path) => path.startsWith(`src/${folder}/`)),
          `src/${folder}/`,
        ).toEqual([]);
      }
      // No dependency at all: not tiktoken, the MCP SDK, zod, lru-cache or better-sqlite3.
      expect(dependencyModules(modules)).toEqual([]);
      expect(loaded.sort()).toEqual(
        [
          'src/cli/cli-commands.js',
          'src/cli/cli-options.js',
          'src/cli/describe-error.js',
          'src/cli/main.js',
          'src/cli/run-cli.js',
          'src/cli/usage-error.js',
          'src/errors.js',
          'src/version.js',
        ].sort(),
      );
    },
  );

  it('a command that runs loads its own module and the library it uses (the record sees them)', async () => {
    // No store file and no config: `pin ls` opens ./mcp-context.sqlite and finds no pins.
    const { code, modules } = await loadedBy(['pin', 'ls', '--pipeline', 'support']);
    expect(code).toBe(0);
    const loaded = packageModules(modules);
    expect(loaded).toContain('src/cli/commands/pin-list.js');
    expect(loaded).toContain('src/cli/cli-context.js');
    expect(loaded).not.toContain('src/cli/commands/provide-context.js');
  });
});

describe('the CLI loads the service only for `serve`', () => {
  it.each(['--help', 'demo', 'provide --help'])(
    '`mcp-context %s` loads no module of src/service/',
    async (command) => {
      const { code, modules } = await loadedBy(command.split(' '));
      expect(code).toBe(0);
      expect(modules.some((url) => url.endsWith('/src/cli/main.js'))).toBe(true);
      expect(serviceModules(modules)).toEqual([]);
    },
  );

  it('`mcp-context serve` loads them (the record is not blind to them)', async () => {
    // Refused after loading: a non-loopback host without keys exits 2 before listening.
    const { code, modules } = await loadedBy(['serve', '--host', '0.0.0.0', '--port', '0']);
    expect(code).toBe(2);
    expect(serviceModules(modules)).toContainEqual(
      expect.stringMatching(/\/src\/service\/start-service\.js$/),
    );
  });
});
