import { type CliStreams, runCli } from '../../../src/cli/run-cli.js';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

let running = false;

/**
 * Runs one `mcp-context` command line in this process, as the built CLI would in `cwd` with
 * `env` added to its environment, its output piped (never coloured): each run of the built CLI
 * was a node start and a tiktoken load. The working directory and the environment are the
 * process's, so runs take turns (one at a time; they are put back after each).
 */
export async function runCliInProcess(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<CliResult> {
  if (running) throw new Error('runCliInProcess: one run at a time (it changes the working directory)');
  running = true;
  const output = { stdout: '', stderr: '' };
  const pipe = (name: keyof typeof output) =>
    ({
      isTTY: false,
      write: (chunk: string | Uint8Array) => {
        output[name] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
        return true;
      },
    }) as unknown as NodeJS.WriteStream;
  const streams: CliStreams = { stdout: pipe('stdout'), stderr: pipe('stderr') };
  const directory = process.cwd();
  const previous = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  try {
    process.chdir(cwd);
    setEnvironment(env);
    const code = await runCli(args, streams);
    return { code, ...output };
  } finally {
    process.chdir(directory);
    setEnvironment(previous);
    running = false;
  }
}

function setEnvironment(values: NodeJS.ProcessEnv): void {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}
