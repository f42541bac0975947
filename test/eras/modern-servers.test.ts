import { afterEach, describe, expect, it } from 'vitest';
import { type ModernServer, startModernServer } from '../../fixtures/modern/start-modern-server.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';

const note = { uri: 'note://a', name: 'a', text: 'alpha', mimeType: 'text/plain' };

describe('servers of the 2026-07-28 revision (fixtures on the MCP SDK v2 server package)', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((item) => item.close()));
  });
  const start = async (eras: 'modern-only' | 'dual-era'): Promise<ModernServer> => {
    const server = await startModernServer({ eras, resources: [note] });
    open.push(server);
    return server;
  };

  it('a dual-era server is reached over its 2025 leg: initialize, then the read', async () => {
    const server = await start('dual-era');
    const servers = new McpServerRegistry({ mcpServers: { dual: { type: 'http', url: server.url } } });
    open.push(servers);

    const read = await servers.readResource('dual', 'note://a');

    expect(read.contents[0]).toMatchObject({ uri: 'note://a', text: 'alpha' });
    expect(server.posts.map((post) => post.method)).toEqual([
      'initialize',
      'notifications/initialized',
      'resources/read',
    ]);
  });

  // The gap issue 34 closes: the client speaks only 2025-11-25, and a modern-only server
  // refuses its initialize with -32022, naming the revisions it supports.
  it('a modern-only server refuses the 2025 initialize: CONNECT_FAILED, HTTP 400, -32022 naming 2026-07-28', async () => {
    const server = await start('modern-only');
    const servers = new McpServerRegistry({
      mcpServers: { modern: { type: 'http', url: server.url } },
      reconnect: false,
    });
    open.push(servers);

    const failure = await servers.readResource('modern', 'note://a').then(
      () => undefined,
      (error: unknown) => error,
    );

    expect(failure).toMatchObject({ code: 'CONNECT_FAILED', server: 'modern', httpStatus: 400 });
    const cause = (failure as { cause?: { message?: string } }).cause;
    expect(cause?.message).toContain('"code":-32022');
    expect(cause?.message).toContain('"supported":["2026-07-28"]');
    expect(server.posts.map((post) => post.method)).toEqual(['initialize']);
    expect(server.readCount('note://a')).toBe(0);
  });
});
