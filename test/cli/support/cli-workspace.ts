import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject, onTestFinished } from 'vitest';
import {
  type GitNexusFixture,
  type GitNexusFixtureOptions,
  startGitNexusFixture,
} from '../../../fixtures/index.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliWorkspace {
  /** A temp directory holding mcp-context.json; the CLI runs with it as the working directory. */
  readonly directory: string;
  readonly fixture: GitNexusFixture;
  /** Runs the built `mcp-context` with these arguments, piped (so never coloured). */
  run(args: readonly string[], options?: { env?: NodeJS.ProcessEnv }): Promise<CliResult>;
  /** `run` with --json, stdout parsed. */
  runJson<T = unknown>(args: readonly string[]): Promise<CliResult & { json: T }>;
  /** Replaces mcp-context.json. */
  writeConfig(config: unknown): void;
}

/**
 * The GitNexus fixture over Streamable HTTP on 127.0.0.1, and a temp directory with an
 * mcp-context.json naming it `gitnexus` and binding the `support` pipeline to it. Both are
 * removed when the test finishes.
 */
export async function startCliWorkspace(
  fixtureOptions: Omit<GitNexusFixtureOptions, 'transport'> = {},
): Promise<CliWorkspace> {
  const fixture = await startGitNexusFixture({ transport: 'http', ...fixtureOptions });
  const directory = mkdtempSync(join(tmpdir(), 'mcp-context-cli-'));
  onTestFinished(async () => {
    await fixture.close();
    rmSync(directory, { recursive: true, force: true });
  });
  const writeConfig = (config: unknown) =>
    writeFileSync(join(directory, 'mcp-context.json'), JSON.stringify(config, null, 2));
  writeConfig({
    mcpServers: { gitnexus: { type: 'http', url: fixture.url } },
    bindings: { support: { servers: ['gitnexus'] } },
    budget: { maxTokens: 4000 },
  });
  const run = (args: readonly string[], options: { env?: NodeJS.ProcessEnv } = {}) =>
    runCli(args, directory, options.env);
  return {
    directory,
    fixture,
    run,
    async runJson<T>(args: readonly string[]) {
      const result = await run([...args, '--json']);
      // A failed command writes its JSON error to stderr and nothing to stdout.
      if (result.stdout === '') return { ...result, json: undefined as T };
      let json: T;
      try {
        json = JSON.parse(result.stdout) as T;
      } catch {
        throw new Error(`not JSON (exit ${result.code}): ${result.stdout}\n${result.stderr}`);
      }
      return { ...result, json };
    },
    writeConfig,
  };
}

/** Runs the built CLI in `cwd`; resolves with the exit code and both streams, whatever the code. */
export function runCli(
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
