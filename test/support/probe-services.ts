import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import type { TestProject } from 'vitest/node';

/** What some tests need beyond Node; each is found once per run by this global setup. */
export type Service =
  | 'postgres'
  | 'redis'
  | 'postgres-binaries'
  | 'redis-server'
  | 'chromium'
  | 'openssl'
  | 'python-client';

export interface Services {
  /** Each missing service, with the line saying how to get it. */
  missing: Partial<Record<Service, string>>;
  /** The folder holding initdb and pg_ctl, when found. */
  postgresBin?: string;
  chromiumPath: string;
  /** The Python that runs clients/python's tests (MCP_CONTEXT_PYTHON, default python3). */
  python: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    services: Services;
  }
}

export const postgresUrl =
  process.env.MCP_CONTEXT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const redisUrl = process.env.MCP_CONTEXT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const probed = Symbol.for('mcp-context.test.services');
type WithProbe = typeof globalThis & { [probed]?: Promise<Services> };

/**
 * Probes once per run (every project's setup shares the answer), prints one line per missing
 * service, and hands the answer to the tests. Under CI=true a missing service fails the run:
 * CI (`.ci/run`) provides every one of them.
 */
export default async function probeServices(project: TestProject): Promise<void> {
  const holder = globalThis as WithProbe;
  const first = holder[probed] === undefined;
  holder[probed] ??= probe();
  const services = await holder[probed];
  const missing = Object.entries(services.missing);
  if (missing.length > 0 && process.env.CI === 'true') {
    const lines = missing.map(([service, how]) => `${service}: ${how}`);
    throw new Error(`CI=true, and the tests need what this machine lacks:\n${lines.join('\n')}`);
  }
  if (first) for (const [service, how] of missing) console.log(`skipped (${service} missing): ${how}`);
  project.provide('services', services);
}

async function probe(): Promise<Services> {
  const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const postgresBin = findPostgresBin();
  const missing: Partial<Record<Service, string>> = {};
  if (!(await listening(postgresUrl, 5432))) {
    missing.postgres = `no PostgreSQL at ${hostOf(postgresUrl, 5432)} (apt-get install postgresql and start it, or set MCP_CONTEXT_TEST_POSTGRES_URL)`;
  }
  if (!(await listening(redisUrl, 6379))) {
    missing.redis = `no Redis at ${hostOf(redisUrl, 6379)} (apt-get install redis-server and start it, or set MCP_CONTEXT_TEST_REDIS_URL)`;
  }
  if (postgresBin === undefined) {
    missing['postgres-binaries'] =
      'no initdb/pg_ctl on PATH or in /usr/lib/postgresql/*/bin (apt-get install postgresql, or set MCP_CONTEXT_POSTGRES_BIN)';
  }
  if (onPath('redis-server') === undefined)
    missing['redis-server'] = 'no redis-server on PATH (apt-get install redis-server)';
  if (!existsSync(chromiumPath))
    missing.chromium = `no ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`;
  if (onPath('openssl') === undefined) missing.openssl = 'no openssl on PATH (apt-get install openssl)';
  const python = process.env.MCP_CONTEXT_PYTHON ?? 'python3';
  const pythonLacks = await pythonLacking(python);
  if (pythonLacks !== undefined) {
    missing['python-client'] =
      `${pythonLacks} (python3 -m pip install ./clients/python pytest, or set MCP_CONTEXT_PYTHON)`;
  }
  return { missing, chromiumPath, python, ...(postgresBin === undefined ? {} : { postgresBin }) };
}

/** What the Python client's tests need that `python` lacks: itself, httpx or pytest (undefined: none). */
function pythonLacking(python: string): Promise<string | undefined> {
  const script = [
    'import importlib.util, sys',
    "lacking = [name for name in ('httpx', 'pytest') if importlib.util.find_spec(name) is None]",
    "print(' and '.join(lacking))",
    'sys.exit(1 if lacking else 0)',
  ].join('\n');
  return new Promise((resolve) => {
    execFile(python, ['-c', script], { timeout: 20_000 }, (error, stdout) => {
      if (error === null) resolve(undefined);
      else if ((error as NodeJS.ErrnoException).code === 'ENOENT') resolve(`no ${python} on PATH`);
      else if (stdout.trim() !== '') resolve(`no ${stdout.trim()} importable by ${python}`);
      else resolve(`${python} did not run (${error.message.split('\n')[0]})`);
    });
  });
}

/** MCP_CONTEXT_POSTGRES_BIN, else PATH, else Debian's newest /usr/lib/postgresql/N/bin. */
function findPostgresBin(): string | undefined {
  const holds = (folder: string) => ['initdb', 'pg_ctl'].every((name) => executable(join(folder, name)));
  const configured = process.env.MCP_CONTEXT_POSTGRES_BIN;
  if (configured !== undefined) return holds(configured) ? configured : undefined;
  const initdb = onPath('initdb');
  if (initdb !== undefined && holds(join(initdb, '..'))) return join(initdb, '..');
  const debian = '/usr/lib/postgresql';
  const versions = existsSync(debian)
    ? readdirSync(debian)
        .filter((name) => /^\d+$/.test(name))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions.map((version) => join(debian, version, 'bin')).find(holds);
}

function onPath(name: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter((folder) => folder !== '')
    .map((folder) => join(folder, name))
    .find(executable);
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function hostOf(url: string, defaultPort: number): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || defaultPort}`;
}

/** A TCP connection within a second: something listens there. */
function listening(url: string, defaultPort: number): Promise<boolean> {
  const parsed = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({
      host: parsed.hostname.replace(/^\[|\]$/g, ''),
      port: Number(parsed.port || defaultPort),
    });
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
