import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { requireServices } from './services.js';

/**
 * A Redis server of its own for the fleet's fault tests (`/usr/bin/redis-server` on a free
 * loopback port, its own `--dir` in a temporary folder): one the test can crash, restart from an
 * older snapshot, pause, and feed hostile values and messages behind the tier's back. The
 * machine's shared Redis on 6379 is never treated so.
 *
 * Nothing is saved unless the test says `save()`: a restart after `kill()` starts empty, or from
 * the last snapshot taken.
 */
export class FaultRedis {
  readonly port: number;
  readonly directory = mkdtempSync(join(tmpdir(), 'mcp-context-redis-'));
  #process: ChildProcess | undefined;
  #client: Redis | undefined;

  private constructor(port: number) {
    this.port = port;
  }

  static async start(): Promise<FaultRedis> {
    requireServices('redis-server');
    const redis = new FaultRedis(await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (or starts again) the server, loading `dump.rdb` from its folder when a snapshot was saved. */
  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        // No automatic snapshots and no AOF: the only snapshot is the one the test takes.
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        this.directory,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    this.#process = child;
    await new Promise<void>((resolve, reject) => {
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
    });
  }

  /** Writes the snapshot (`SAVE`) a later `restartFromSnapshot()` goes back to. */
  async save(): Promise<void> {
    await (await this.#raw()).save();
  }

  /** Crashes it and starts it again from the last `save()`: everything written since is gone. */
  async restartFromSnapshot(): Promise<void> {
    await this.kill();
    await this.start();
  }

  /** Kills it at once, as a crash would: nothing is saved on the way out. */
  async kill(): Promise<void> {
    this.#client?.disconnect();
    this.#client = undefined;
    const child = this.#process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** Stops the process (SIGSTOP): connections stay open and nothing answers, as a stalled host. */
  pause(): void {
    this.#process?.kill('SIGSTOP');
  }

  /** Lets a paused server go on (SIGCONT). */
  resume(): void {
    this.#process?.kill('SIGCONT');
  }

  /** Writes `value` as a plain string at `key`, whatever the tier expects there. */
  async setString(key: string, value: string): Promise<void> {
    await (await this.#raw()).set(key, value);
  }

  /** Replaces whatever is at `key` with a hash of these fields. */
  async setHash(key: string, fields: Record<string, string>): Promise<void> {
    const raw = await this.#raw();
    await raw.del(key);
    await raw.hset(key, fields);
  }

  /** Publishes `message` as is on `channel`. */
  async publish(channel: string, message: string | Buffer): Promise<number> {
    return (await this.#raw()).publish(channel, message);
  }

  /** Keys matching `pattern`. */
  async keys(pattern: string): Promise<string[]> {
    return (await this.#raw()).keys(pattern);
  }

  /** A connection of the test's own (not the tier's), made on first use. */
  async #raw(): Promise<Redis> {
    if (!this.#client) {
      this.#client = new Redis(this.url, { maxRetriesPerRequest: 1 });
      this.#client.on('error', () => undefined);
    }
    return this.#client;
  }

  async destroy(): Promise<void> {
    this.resume();
    await this.kill();
    rmSync(this.directory, { recursive: true, force: true });
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
