import { execFile, execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { postgresBin } from '../../support/services.js';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of its own on a free loopback port, for tests that stop and start the
 * server (the machine's shared one on 5432 is never restarted). initdb refuses root: as root,
 * it runs as the `postgres` user.
 */
export class ThrowawayPostgres {
  readonly port: number;
  readonly #directory: string;

  private constructor(port: number, directory: string) {
    this.port = port;
    this.#directory = directory;
  }

  static async create(): Promise<ThrowawayPostgres> {
    const directory = mkdtempSync(join(tmpdir(), 'mcp-context-pg-'));
    const cluster = new ThrowawayPostgres(await freePort(), directory);
    if (process.getuid?.() === 0) chownSync(directory, uidOf('postgres'), gidOf('postgres'));
    await cluster.#run('initdb', ['-D', cluster.#data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    await cluster.start();
    return cluster;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.#directory} -c listen_addresses=127.0.0.1 -c fsync=off`;
    await this.#run('pg_ctl', [
      '-D',
      this.#data,
      '-o',
      options,
      '-l',
      join(this.#directory, 'log'),
      '-w',
      'start',
    ]);
  }

  /** Stops at once, as a crash or a failover would: open connections are cut. */
  async stop(): Promise<void> {
    await this.#run('pg_ctl', ['-D', this.#data, '-m', 'immediate', '-w', 'stop']);
  }

  async destroy(): Promise<void> {
    await this.stop().catch(() => undefined);
    rmSync(this.#directory, { recursive: true, force: true });
  }

  // --- Internal helpers ---

  get #data(): string {
    return join(this.#directory, 'data');
  }

  async #run(binary: string, args: string[]): Promise<void> {
    const command = join(postgresBin(), binary);
    if (process.getuid?.() === 0) {
      const quoted = [command, ...args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ');
      await run('su', ['postgres', '-s', '/bin/sh', '-c', quoted]);
    } else {
      await run(command, args);
    }
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function uidOf(user: string): number {
  return Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
}

function gidOf(user: string): number {
  return Number(execFileSync('id', ['-g', user], { encoding: 'utf8' }).trim());
}
