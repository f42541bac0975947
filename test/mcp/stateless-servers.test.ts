import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { startStatelessServer } from '../../fixtures/index.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { createScriptedServer } from './support/scripted-server.js';

const scripted = () =>
  createScriptedServer({
    resources: [{ uri: 'x://a', name: 'a' }],
    contents: { 'x://a': [{ uri: 'x://a', mimeType: 'text/plain', text: 'alpha' }] },
  });

describe('stateless Streamable HTTP servers (no session id, POST only)', () => {
  it.each([404, 405] as const)(
    'a GET stream refused with %i is "no stream": one session serves every operation, and an idle minute opens no other',
    async (getStatus) => {
      const host = await startStatelessServer({ createServer: scripted, getStatus });
      const servers = new McpServerRegistry({ mcpServers: { hosted: { type: 'http', url: host.url } } });
      onTestFinished(async () => {
        vi.useRealTimers();
        await servers.close();
        await host.close();
      });
      const closed: string[] = [];
      servers.on('session-closed', (event) => closed.push(event.server));

      expect((await servers.listTools('hosted')).tools.map((tool) => tool.name)).toContain('echo');
      await expect.poll(() => host.refusedStreams()).toBe(1);
      // The stream's refusal has reached the client by the time a later request is answered.
      const read = await servers.readResource('hosted', 'x://a');
      expect(read.contents[0]).toMatchObject({ text: 'alpha' });
      expect(servers.status('hosted')).toMatchObject({ state: 'connected', reconnectAttempts: 0 });
      expect(servers.status('hosted').nextReconnectAt).toBeUndefined();

      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      await vi.advanceTimersByTimeAsync(60_000);
      vi.useRealTimers();

      expect((await servers.listResources('hosted')).resources).toHaveLength(1);
      expect(await servers.callTool('hosted', 'echo', { n: 1 })).toMatchObject({
        content: [{ type: 'text', text: 'echo {"n":1}' }],
      });
      expect(closed).toEqual([]);
      expect(host.methods.filter((method) => method === 'initialize')).toHaveLength(1);
    },
  );

  it('a server that drops each session right after it opens is retried with growing delays, not in a loop', async () => {
    const host = await startStatelessServer({ createServer: scripted, forgetsSessions: true });
    const servers = new McpServerRegistry({
      mcpServers: { amnesiac: { type: 'http', url: host.url } },
      reconnect: { initialDelayMs: 100, maxDelayMs: 800, jitter: 0 },
    });
    onTestFinished(async () => {
      await servers.close();
      await host.close();
    });
    const delays: number[] = [];
    servers.on('session-closed', () => {
      const next = servers.status('amnesiac').nextReconnectAt;
      if (next !== undefined) delays.push(Date.parse(next) - Date.now());
    });
    await servers.getServerCapabilities('amnesiac');
    await expect.poll(() => delays.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    await servers.close();
    // Each short-lived session is a failed attempt: 200, 400, 800 ms (less the milliseconds
    // between scheduling and the event on a loaded machine), where a loop would wait 100 ms
    // every time.
    const [first = 0, second = 0, third = 0] = delays;
    expect(first).toBeGreaterThan(150);
    expect(second).toBeGreaterThan(first * 1.5);
    expect(third).toBeGreaterThan(second * 1.5);
  });
});
