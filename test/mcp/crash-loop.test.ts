import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { nextReconnectDelay } from '../../src/mcp/reconnect-schedule.js';
import { scriptedMemoryConfig } from './support/scripted-server.js';

/** Short delays so the loop runs its course; the stable threshold far above any of them. */
const policy = {
  initialDelayMs: 1,
  maxDelayMs: 8,
  jitter: 0,
  maxFailures: 6,
  failedRetryMs: 3_600_000,
  stableSessionMs: 3_600_000,
};

/** A real SDK server that accepts `initialize` and then drops every session (a crash loop). */
function crashLoopingServer() {
  const sessions: Server[] = [];
  const config = scriptedMemoryConfig({ resources: [{ uri: 'x://a', name: 'a' }] }, (server) => {
    sessions.push(server);
    server.oninitialized = () => {
      void server.close();
    };
  });
  return { config, sessions };
}

describe('reconnect schedule', () => {
  it('backs off exponentially up to the cap, then rests for failedRetryMs once maxFailures is reached', () => {
    const delays = [0, 1, 2, 3, 4, 5, 6, 7].map((failures) => nextReconnectDelay(failures, policy));
    expect(delays).toEqual([
      { delayMs: 1, failed: false },
      { delayMs: 2, failed: false },
      { delayMs: 4, failed: false },
      { delayMs: 8, failed: false },
      { delayMs: 8, failed: false },
      { delayMs: 8, failed: false },
      { delayMs: 3_600_000, failed: true },
      { delayMs: 3_600_000, failed: true },
    ]);
  });
});

describe('a server that crash-loops after initialize', () => {
  it('is respawned with growing delays, then marked failed: calls fail at once with SERVER_FAILED, and no session opens', async () => {
    const { config, sessions } = crashLoopingServer();
    const servers = new McpServerRegistry({ mcpServers: { looping: config }, reconnect: policy });
    onTestFinished(() => servers.close());
    const scheduled: { failures: number; delayMs: number; failed: boolean }[] = [];
    const failed = new Promise((resolve) => {
      servers.on('reconnect-scheduled', (event) => {
        scheduled.push({ failures: event.failures, delayMs: event.delayMs, failed: event.failed });
        if (event.failed) resolve(event);
      });
    });

    // The first session opens (initialize answered), then the loop runs on its own.
    await servers.getServerCapabilities('looping').catch(() => undefined);
    await failed;
    expect(scheduled).toEqual([
      { failures: 1, delayMs: 2, failed: false },
      { failures: 2, delayMs: 4, failed: false },
      { failures: 3, delayMs: 8, failed: false },
      { failures: 4, delayMs: 8, failed: false },
      { failures: 5, delayMs: 8, failed: false },
      { failures: 6, delayMs: 3_600_000, failed: true },
    ]);
    expect(servers.status('looping')).toMatchObject({
      state: 'failed',
      consecutiveFailures: 6,
      nextReconnectAt: expect.any(String),
    });
    const spawned = sessions.length;
    await expect(servers.listResources('looping')).rejects.toMatchObject({
      code: 'SERVER_FAILED',
      server: 'looping',
    });
    expect(sessions).toHaveLength(spawned);
  });

  it('turns during the backoff do not respawn it: only the schedule does', async () => {
    const { config, sessions } = crashLoopingServer();
    const servers = new McpServerRegistry({
      mcpServers: { looping: config },
      reconnect: { ...policy, initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 },
    });
    onTestFinished(() => servers.close());
    const failure = (count: number) =>
      new Promise((resolve) => {
        servers.on('reconnect-scheduled', (event) => {
          if (event.failures === count) resolve(event);
        });
      });
    // One drop is a blip: the next use reconnects at once. A second drop means backing off.
    const firstFailure = failure(1);
    await servers.getServerCapabilities('looping').catch(() => undefined);
    await firstFailure;
    const secondFailure = failure(2);
    await servers.getServerCapabilities('looping').catch(() => undefined);
    await secondFailure;
    const spawned = sessions.length;
    for (let turn = 0; turn < 5; turn++) {
      await expect(servers.listResources('looping')).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
    }
    expect(sessions).toHaveLength(spawned);
  });

  it('reconnect(name) clears the failed mark and connects at once', async () => {
    let crashing = true;
    const sessions: Server[] = [];
    const config = scriptedMemoryConfig({ resources: [{ uri: 'x://a', name: 'a' }] }, (server) => {
      sessions.push(server);
      server.oninitialized = () => {
        if (crashing) void server.close();
      };
    });
    const servers = new McpServerRegistry({ mcpServers: { looping: config }, reconnect: policy });
    onTestFinished(() => servers.close());
    const failed = new Promise((resolve) => {
      servers.on('reconnect-scheduled', (event) => {
        if (event.failed) resolve(event);
      });
    });
    await servers.getServerCapabilities('looping').catch(() => undefined);
    await failed;

    crashing = false;
    await servers.reconnect('looping');
    expect(servers.status('looping')).toMatchObject({ state: 'connected', consecutiveFailures: 0 });
    expect((await servers.listResources('looping')).resources).toHaveLength(1);
  });
});
