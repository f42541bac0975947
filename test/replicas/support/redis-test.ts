import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { onTestFinished } from 'vitest';
import { RedisSharedTier, type RedisSharedTierOptions } from '../../../src/redis.js';

// The machine's Redis on 6379 (`.ci/run` starts one when none listens); each test its own key
// prefix, whose keys are deleted when it finishes.
export const testRedisUrl = process.env.MCP_CONTEXT_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix no other test uses; its keys are deleted when the test finishes. */
export function freshPrefix(url = testRedisUrl): string {
  const prefix = `mcp-context-test:${randomBytes(6).toString('hex')}:`;
  onTestFinished(async () => {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } catch {
      // A throwaway Redis is already gone, and its keys with it.
    } finally {
      redis.disconnect();
    }
  });
  return prefix;
}

/** A tier (one replica's connections), ready, closed when the test finishes. */
export async function openTier(options: RedisSharedTierOptions = {}): Promise<RedisSharedTier> {
  const tier = new RedisSharedTier({ url: testRedisUrl, ...options });
  onTestFinished(() => tier.close());
  await tier.ready();
  return tier;
}

/**
 * A Redis server of its own on a free loopback port, for tests that kill and restart Redis
 * (the machine's shared one on 6379 is never restarted). Keeps nothing on disk.
 */
export class ThrowawayRedis {
  readonly port: number;
  readonly #directory = mkdtempSync(join(tmpdir(), 'mcp-context-redis-'));
  #process: ChildProcess | undefined;

  private constructor(port: number) {
    this.port = port;
  }

  static async start(): Promise<ThrowawayRedis> {
    const redis = new ThrowawayRedis(await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        this.#directory,
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

  /** Kills it at once, as a crash would: everything it held is gone. */
  async kill(): Promise<void> {
    const child = this.#process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async destroy(): Promise<void> {
    await this.kill();
    rmSync(this.#directory, { recursive: true, force: true });
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
