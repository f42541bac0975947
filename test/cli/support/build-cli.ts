import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The built `mcp-context` entry (main.js) the CLI tests run. */
    cliEntry: string;
  }
}

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
// Inside the repository so the built files resolve node_modules; apart from dist so a test run
// and `npm start` never overwrite each other's output. Incremental: a rebuild with no changes is ~2 s.
const outDir = join(root, 'node_modules/.cache/mcp-context-cli-test');

/** Builds the package (src and fixtures) once per test run (the build config, `tsc -p tsconfig.build.json`). */
export default async function buildCli(project: TestProject): Promise<void> {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const result = await promisify(execFile)(
    process.execPath,
    [
      tsc,
      '-p',
      'tsconfig.build.json',
      '--outDir',
      outDir,
      '--incremental',
      '--tsBuildInfoFile',
      join(outDir, 'tsbuildinfo'),
    ],
    { cwd: root },
  ).catch((error: { stdout?: string; code?: number }) => error);
  const entry = join(outDir, 'src/cli/main.js');
  // tsc still emits when there are type errors; the type check proper is `npm run typecheck`.
  if ('code' in result && result.code !== 0) {
    process.stderr.write(`build-cli: tsc reported errors (type-check separately):\n${result.stdout ?? ''}\n`);
  }
  if (!existsSync(entry)) throw new Error(`build-cli: ${entry} was not built`);
  project.provide('cliEntry', entry);
  // The fault fixture starts its stdio children from this build (plain node) rather than through
  // tsx: the fault matrix starts dozens. Set before the test processes start, which inherit it.
  process.env.MCP_CONTEXT_TEST_BUILD = outDir;
}
