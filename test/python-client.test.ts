import { execFile } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, inject, it } from 'vitest';
import { missing, pythonPath } from './support/services.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * clients/python's pytest suite, as CI runs it: one real `mcp-context serve` (the CLI this run
 * built) for the whole session, in front of the GitNexus and workspace fixtures over stdio.
 * Skipped with one line where python3, httpx or pytest is missing; under CI=true that fails.
 */
describe.skipIf(missing('python-client'))('the Python client (clients/python)', () => {
  it('passes its pytest suite against a real mcp-context serve', async () => {
    const result = await new Promise<{ code: number | null; output: string }>((done) => {
      execFile(
        pythonPath,
        ['-m', 'pytest', 'clients/python/tests', '-q', '-p', 'no:cacheprovider'],
        {
          cwd: root,
          env: { ...process.env, MCP_CONTEXT_CLI: inject('cliEntry'), MCP_CONTEXT_NODE: process.execPath },
          timeout: 240_000,
          maxBuffer: 16 * 1024 * 1024,
        },
        (error, stdout, stderr) => {
          const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
          done({ code, output: `${stdout}${stderr}` });
        },
      );
    });
    expect(result.code, result.output).toBe(0);
    const summary = /(\d+) passed/.exec(result.output);
    // Every test of the suite ran: none skipped, none deselected.
    expect(Number(summary?.[1]), result.output).toBeGreaterThanOrEqual(29);
    expect(result.output).not.toMatch(/\d+ (failed|skipped|error)/);
  }, 300_000);
});
