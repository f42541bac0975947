import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = join(import.meta.dirname, '../..');

export interface ServiceChild {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly pid: number;
  /** The service process's memory after full GCs in it (see service-memory-probe.ts). */
  memoryAfterGc(): Promise<NodeJS.MemoryUsage>;
  /** The service process's CPU time so far (user + system), in seconds. */
  cpuSeconds(): Promise<number>;
  /** SIGTERM (drains and exits 0); SIGKILL after 10 s. */
  close(): Promise<void>;
}

/**
 * `mcp-context serve --config <configPath> --port 0 --json` from the sources (as the benchmark's
 * in-process side runs them), in its own Node process with `--expose-gc` and the memory probe.
 */
export async function startServiceChild(configPath: string): Promise<ServiceChild> {
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      '--import',
      join(import.meta.dirname, 'service-memory-probe.ts'),
      join(root, 'src/cli/main.ts'),
      'serve',
      '--config',
      configPath,
      '--port',
      '0',
      '--json',
    ],
    // From the repository, where tsx resolves; the config names its stores (relative to the file).
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] },
  );
  let stderr = '';
  child.stderr?.on('data', (data) => {
    stderr += data.toString();
  });
  const url = await firstUrl(child, () => stderr);
  return {
    url,
    pid: child.pid ?? 0,
    async memoryAfterGc() {
      const answer = await ask<{ usage: NodeJS.MemoryUsage; gcExposed: boolean }>(child, 'memory');
      if (!answer.gcExposed) throw new Error('the service child runs without --expose-gc');
      return answer.usage;
    },
    async cpuSeconds() {
      const { usage } = await ask<{ usage: NodeJS.CpuUsage }>(child, 'cpu');
      return (usage.user + usage.system) / 1e6;
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// --- Internal helpers ---

/** One question to the probe over IPC, and its answer. */
function ask<Answer>(child: ChildProcess, kind: string): Promise<Answer> {
  return new Promise((resolve) => {
    const listen = (message: { kind?: string }) => {
      if (message?.kind !== kind) return;
      child.off('message', listen);
      resolve(message as Answer);
    };
    child.on('message', listen);
    child.send({ kind });
  });
}

async function firstUrl(child: ChildProcess, stderr: () => string): Promise<string> {
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    try {
      return (JSON.parse(line) as { url: string }).url;
    } catch {
      // Not the {"url"} line.
    }
  }
  throw new Error(`mcp-context serve printed no URL; stderr: ${stderr()}`);
}
