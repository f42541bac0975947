import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { startGitNexusFixture } from '../../fixtures/index.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { reconnectDelay } from '../../src/mcp/reconnect-schedule.js';
import { scriptedMemoryConfig } from './support/scripted-server.js';

const shortBackoff = { initialDelayMs: 50, maxDelayMs: 200 };

describe('reconnectDelay', () => {
  it('doubles from 1 s and stops at 30 s', () => {
    const policy = { initialDelayMs: 1_000, maxDelayMs: 30_000, jitter: 0 };
    expect([0, 1, 2, 3, 4, 5, 6, 40].map((attempt) => reconnectDelay(attempt, policy))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });

  it('jitter only ever shortens a delay, by at most its fraction', () => {
    const policy = { initialDelayMs: 1_000, maxDelayMs: 30_000, jitter: 0.2 };
    expect(reconnectDelay(3, policy, () => 0)).toBe(8_000);
    expect(reconnectDelay(3, policy, () => 0.999_999)).toBe(6_400);
    expect(reconnectDelay(10, policy, () => 0.5)).toBe(27_000);
  });
});

describe('McpServerRegistry reconnecting', () => {
  it('reopens a session the server closed, in the background, and says so with events', async () => {
    const sessions: Server[] = [];
    const servers = new McpServerRegistry({
      mcpServers: {
        scripted: scriptedMemoryConfig({ resources: [{ uri: 'x://a', name: 'a' }] }, (server) =>
          sessions.push(server),
        ),
      },
      reconnect: shortBackoff,
    });
    onTestFinished(() => servers.close());
    const events: string[] = [];
    servers.on('session-opened', () => events.push('opened'));
    servers.on('session-closed', () => events.push('closed'));
    await servers.listResources('scripted');
    await sessions[0]?.close();
    await expect.poll(() => events, { timeout: 5_000 }).toEqual(['opened', 'closed', 'opened']);
    expect(sessions).toHaveLength(2);
    expect(servers.status('scripted')).toMatchObject({ state: 'connected', reconnectAttempts: 0 });
    expect((await servers.listResources('scripted')).resources).toHaveLength(1);
  });

  it('reconnects after the HTTP fixture restarts on the same port, backing off while it is down', async () => {
    const first = await startGitNexusFixture({ transport: 'http' });
    const port = Number(new URL(first.url ?? '').port);
    const servers = new McpServerRegistry({
      mcpServers: { gitnexus: first.serverConfig },
      reconnect: shortBackoff,
    });
    let restarted: Awaited<ReturnType<typeof startGitNexusFixture>> | undefined;
    onTestFinished(async () => {
      await servers.close();
      await first.close();
      await restarted?.close();
    });
    const events: string[] = [];
    servers.on('session-opened', () => events.push('opened'));
    servers.on('session-closed', () => events.push('closed'));
    await servers.listResources('gitnexus');

    await first.close();
    // While the server is down, a call fails as a failure, and the registry keeps trying.
    await expect(servers.listResources('gitnexus')).rejects.toMatchObject({ server: 'gitnexus' });
    await expect
      .poll(() => servers.status('gitnexus').reconnectAttempts, { timeout: 5_000 })
      .toBeGreaterThan(0);
    expect(servers.status('gitnexus').state).toBe('error');

    restarted = await startGitNexusFixture({ transport: 'http', port });
    await expect.poll(() => servers.status('gitnexus').state, { timeout: 5_000 }).toBe('connected');
    expect(events).toEqual(['opened', 'closed', 'opened']);
    expect(restarted.sessionCount()).toBe(1);
    const { resources } = await servers.listResources('gitnexus');
    expect(resources.map((resource) => resource.uri)).toContain('gitnexus://repos');
  });

  it('a call after the server restarted under it starts a new session instead of failing', async () => {
    const first = await startGitNexusFixture({ transport: 'http' });
    const port = Number(new URL(first.url ?? '').port);
    const servers = new McpServerRegistry({
      mcpServers: { gitnexus: first.serverConfig },
      reconnect: shortBackoff,
    });
    let restarted: Awaited<ReturnType<typeof startGitNexusFixture>> | undefined;
    onTestFinished(async () => {
      await servers.close();
      await first.close();
      await restarted?.close();
    });
    await servers.listResources('gitnexus');
    await first.close();
    restarted = await startGitNexusFixture({ transport: 'http', port });
    const result = await servers.readResource('gitnexus', 'gitnexus://repos');
    expect(result.contents[0]).toMatchObject({ uri: 'gitnexus://repos' });
    expect(restarted.sessionCount()).toBe(1);
  });

  it('close() stops reconnecting: no session opens afterwards, and the state stays closed', async () => {
    // The test owns the clock: after close(), time runs far past the longest backoff, and any
    // reconnect still scheduled would open a second session.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const sessions: Server[] = [];
    const servers = new McpServerRegistry({
      mcpServers: { scripted: scriptedMemoryConfig({}, (server) => sessions.push(server)) },
      reconnect: shortBackoff,
    });
    await servers.listResources('scripted');
    const sessionClosed = new Promise((resolve) => servers.once('session-closed', resolve));
    await sessions[0]?.close();
    await sessionClosed;
    // A reconnect is scheduled now: close() has to stop it.
    expect(servers.status('scripted').nextReconnectAt).toEqual(expect.any(String));
    await servers.close();
    await vi.advanceTimersByTimeAsync(shortBackoff.maxDelayMs * 10);
    expect(sessions).toHaveLength(1);
    expect(servers.status('scripted')).toMatchObject({ state: 'closed' });
    expect(servers.status('scripted').nextReconnectAt).toBeUndefined();
    await expect(servers.listResources('scripted')).rejects.toMatchObject({ code: 'SESSION_CLOSED' });
  });
});
