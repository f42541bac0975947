import { execFile } from 'node:child_process';
import { inject } from 'vitest';
import type { CliResult } from './run-cli-in-process.js';

/**
 * Runs the built CLI (test/cli/support/build-cli.ts) in `cwd`, piped; resolves with the exit code
 * and both streams, whatever the code. For what is about the process: exit codes, what it loads,
 * what outlives it.
 */
export function runBuiltCli(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [inject('cliEntry'), ...args],
      { cwd, env: { ...process.env, NO_COLOR: '', FORCE_COLOR: '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
