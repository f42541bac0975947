import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import type { GitNexusSession } from '../../fixtures/gitnexus/fixture-state.js';
import { startHttpHost } from '../../fixtures/gitnexus/http-host.js';
import { createGitNexusFixtureState, createGitNexusServer } from '../../fixtures/index.js';
import { freshSchema, testDatabaseUrl } from '../replicas/support/postgres-test-database.js';
import { freshPrefix, testRedisUrl } from '../replicas/support/redis-test.js';
import { requireServices } from '../support/services.js';

const uri = 'gitnexus://repos';

interface Entry {
  readonly uri: string;
  readonly attachmentId?: string;
  readonly status: string;
  readonly sha256?: string;
  readonly cache: string;
  readonly sharedCache?: string;
  readonly change?: string;
}

/** `mcp-context serve` (the built CLI) as a child process on a free loopback port; its URL. */
async function spawnServe(configPath: string, directory: string): Promise<string> {
  const child = spawn(
    process.execPath,
    [inject('cliEntry'), 'serve', '--config', configPath, '--port', '0'],
    {
      cwd: directory,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (data) => {
    stderr += data.toString();
  });
  onTestFinished(() => stop(child));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
    if (url) return url;
  }
  throw new Error(`serve printed no URL; stderr: ${stderr}`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

// biome-ignore lint/suspicious/noExplicitAny: the service's JSON, read by its documented shape
async function call(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${url}${path}`, {
    method,
    ...(body !== undefined && {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return path === '/metrics' ? text : JSON.parse(text);
}

async function turn(url: string): Promise<Entry[]> {
  const { trace } = await call(url, 'POST', '/v1/provide', { pipelineId: 'support', conversationId: 'c-1' });
  return trace.entries;
}

/** A counter's value in /metrics (0 when the family is absent). */
async function counter(url: string, name: string): Promise<number> {
  const text: string = await call(url, 'GET', '/metrics');
  return Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('two `mcp-context serve` processes sharing PostgreSQL and Redis', () => {
  it('share pins, invalidations and the content cache: what A adds, hears and reads, B lists, drops and serves', async () => {
    requireServices('postgres', 'redis');
    const schema = await freshSchema();
    const keyPrefix = freshPrefix();
    // One GitNexus fixture (subscribe offered) on one URL, so both processes name the same server
    // and share its cache keys; its sessions are told apart by when they opened, so a change can be
    // notified to A's session alone and B can learn of it only through the fleet.
    const state = createGitNexusFixtureState({ subscribe: true });
    const host = await startHttpHost((options) => createGitNexusServer(state, options), 0);
    const directory = mkdtempSync(join(tmpdir(), 'mcp-context-two-serve-'));
    onTestFinished(async () => {
      await host.close();
      rmSync(directory, { recursive: true, force: true });
    });
    const configPath = join(directory, 'mcp-context.json');
    writeFileSync(
      configPath,
      JSON.stringify({
        mcpServers: { gitnexus: { type: 'http', url: host.url } },
        bindings: { support: { servers: ['gitnexus'] } },
        budget: { maxTokens: 4000 },
        store: { postgres: { connectionString: testDatabaseUrl, schema } },
        redis: { url: testRedisUrl, keyPrefix },
      }),
    );
    const reads = () => state.reads.filter((read) => read === uri).length;
    const connected = async (url: string) =>
      (await call(url, 'GET', '/readyz')).checks.servers.gitnexus === 'connected';

    const a = await spawnServe(configPath, directory);
    await until(() => connected(a), "A's session");
    const sessionsOfA = new Set<GitNexusSession>(state.sessions);
    expect(sessionsOfA.size).toBe(1);
    const b = await spawnServe(configPath, directory);
    await until(() => connected(b), "B's session");
    expect(state.sessions.size).toBe(2);

    // A pin added through A is B's to list and to inject.
    const { pin } = await call(a, 'POST', '/v1/pins', {
      scope: { conversationId: 'c-1' },
      server: 'gitnexus',
      uri,
    });
    const listed = await call(b, 'GET', '/v1/pins?conversationId=c-1');
    expect(listed.pins.map((item: { id: string; uri: string }) => [item.id, item.uri])).toEqual([
      [pin.id, uri],
    ]);

    // A reads it for the fleet; B's turn is served by the shared copy: one read at the server.
    const [first] = await turn(a);
    expect(first).toMatchObject({
      attachmentId: pin.id,
      status: 'injected',
      cache: 'miss',
      sharedCache: 'miss',
    });
    expect(reads()).toBe(1);
    const [second] = await turn(b);
    expect(second).toMatchObject({
      attachmentId: pin.id,
      status: 'injected',
      cache: 'miss',
      sharedCache: 'hit',
    });
    expect(second?.sha256).toBe(first?.sha256);
    expect(reads()).toBe(1);
    expect(await counter(a, 'mcp_context_shared_tier_leads_total')).toBe(1);
    expect(await counter(a, 'mcp_context_shared_tier_hits_total')).toBe(0);
    expect(await counter(b, 'mcp_context_shared_tier_hits_total')).toBe(1);
    expect(await counter(b, 'mcp_context_shared_tier_leads_total')).toBe(0);
    // B now holds it itself.
    expect((await turn(b))[0]).toMatchObject({ cache: 'hit', sha256: first?.sha256 });

    // The resource changes and only A's session is told (`notifications/resources/updated`, to
    // the subscriber: both subscribed, as the pin is theirs).
    await until(
      async () => [...state.sessions].every((session) => session.subscriptions.has(uri)),
      'both subscriptions',
    );
    const heardByB = await counter(b, 'mcp_context_shared_tier_received_total');
    state.advanceGeneration();
    for (const session of sessionsOfA) {
      await session.notificationsReady();
      await session.server.sendResourceUpdated({ uri });
    }
    await until(
      async () => (await counter(b, 'mcp_context_shared_tier_received_total')) > heardByB,
      "B hearing A's invalidation",
    );
    const [changed] = await turn(b);
    expect(changed).toMatchObject({
      status: 'injected',
      cache: 'miss',
      sharedCache: 'miss',
      change: 'changed',
    });
    expect(changed?.sha256).not.toBe(first?.sha256);
    expect(reads()).toBe(2);
    // And A, told by the server, takes B's new copy from the fleet.
    expect((await turn(a))[0]).toMatchObject({
      sharedCache: 'hit',
      sha256: changed?.sha256,
      change: 'changed',
    });
    expect(reads()).toBe(2);

    // A pin removed through A is gone from B's next turn, which B would otherwise have answered
    // as a kept turn (two full turns alike just before).
    await turn(b);
    await turn(b);
    await call(a, 'DELETE', `/v1/pins/${pin.id}?conversationId=c-1`);
    expect((await call(b, 'GET', '/v1/pins?conversationId=c-1')).pins).toEqual([]);
    expect(await turn(b)).toEqual([]);
  });
});
