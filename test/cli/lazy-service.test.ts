import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
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
