import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import {
  type GitNexusFixture,
  type GitNexusFixtureOptions,
  startGitNexusFixture,
} from '../../../fixtures/index.js';
import { type CliResult, runCliInProcess } from './run-cli-in-process.js';

export type { CliResult };

/** How a workspace runs a command line: in this process (the default), or the built CLI (run-built-cli.ts). */
export type CliRunner = (args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv) => Promise<CliResult>;

export interface CliWorkspace {
  /** A temp directory holding mcp-context.json; the CLI runs with it as the working directory. */
  readonly directory: string;
  readonly fixture: GitNexusFixture;
  /** Runs `mcp-context` with these arguments (in this process unless another runner was given), piped. */
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
  runner: CliRunner = runCliInProcess,
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
    runner(args, directory, options.env);
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
