import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { interleavedMedians, percentile, round } from '../support/measure.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

const root = join(import.meta.dirname, '../..');
// Apart from dist/ and from the CLI tests' build, so a bench run and a test run never overwrite
// each other's output. Incremental: a rebuild with no changes is a few seconds.
const outDir = join(root, 'node_modules/.cache/mcp-context-cli-bench');

const maxMs = 150;
const maxRatio = 2;

/** The CLI invocations that must start as fast as Node itself, and the exit code each must give. */
const invocations = [
  { key: 'help', words: ['--help'], exit: 0 },
  { key: 'version', words: ['--version'], exit: 0 },
  { key: 'usageError', words: ['bogus'], exit: 2 },
] as const;

/**
 * How long the built `mcp-context` takes, as a whole process from spawn to exit, for `--help`,
 * `--version` and a usage error (an unknown command), beside bare `node -e 0` started the same way:
 * the target is ≤ 150 ms wall and ≤ 2× bare Node. Each round runs all four once in a random
 * order (`interleavedMedians`), so a noisy moment of a shared machine falls on all of them; each
 * figure is the median over windows of the window medians, and the ratio the median of each
 * window's slowest CLI invocation over its bare Node. The absolute figures include what a loaded
 * machine adds to starting any process; the ratio does not.
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const entry = await buildCli();
  const cwd = await mkdtemp(join(tmpdir(), 'bench-cli-start-'));
  try {
    const bare = () => runProcess(['-e', '0'], cwd, 0);
    const cli = invocations.map(
      (invocation) => () => runProcess([entry, ...invocation.words], cwd, invocation.exit),
    );
    const windows = await interleavedMedians([bare, ...cli], options.quick ? 2 : 5, options.quick ? 5 : 10);
    const median = (column: number) =>
      percentile(
        windows.map((window) => window[column] ?? Number.NaN),
        50,
      );
    const bareMs = median(0);
    const cliMs = invocations.map((_, index) => median(index + 1));
    const slowestMs = Math.max(...cliMs);
    const ratio = percentile(
      windows.map(([windowBare = Number.NaN, ...windowCli]) => Math.max(...windowCli) / windowBare),
      50,
    );
    return {
      ratio: round(ratio, 2),
      bareNodeMs: round(bareMs, 1),
      ...Object.fromEntries(
        invocations.map((invocation, index) => [`${invocation.key}Ms`, round(cliMs[index] ?? Number.NaN, 1)]),
      ),
      slowestMs: round(slowestMs, 1),
      runs: windows.length * (options.quick ? 5 : 10),
      target: `each <= ${maxMs} ms wall and <= ${maxRatio}x bare node -e 0`,
      met: slowestMs <= maxMs && ratio <= maxRatio,
    };
  } finally {
    await rm(cwd, { recursive: true, force: true });
  }
}

// --- Internal helpers ---

/** Builds the package (tsconfig.build.json) into the bench's own folder; returns the CLI entry. */
async function buildCli(): Promise<string> {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  await promisify(execFile)(
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
  ).catch((error: { code?: number; stdout?: string }) => {
    // tsc still emits when there are type errors; the type check proper is `npm run typecheck`.
    process.stderr.write(`cliStart: tsc reported errors (exit ${error.code}):\n${error.stdout ?? ''}\n`);
  });
  return join(outDir, 'src/cli/main.js');
}

/** One `node …` process, spawned and awaited to its exit; its output is read and dropped. */
function runProcess(args: readonly string[], cwd: string, exit: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd,
      // Options meant for other Node processes (a preloaded module, say) would be timed with it.
      env: { ...process.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === exit) resolve();
      else reject(new Error(`node ${args.join(' ')}: exit ${code}, expected ${exit}\n${stderr}`));
    });
  });
}

export const readme: ReadmeRow = {
  what: 'the built `mcp-context` started as a whole process: `--help`, `--version` and a usage error, beside bare `node -e 0`, interleaved',
  result: (figures) =>
    `help ${figures.helpMs} ms, version ${figures.versionMs} ms, usage error ${figures.usageErrorMs} ms; bare Node ${figures.bareNodeMs} ms: **${figures.ratio}×**`,
  target: '≤ 150 ms, ≤ 2× bare Node',
};
