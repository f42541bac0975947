import { createServer } from 'node:http';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { type GitNexusFixtureOptions, startGitNexusFixture } from '../../fixtures/index.js';
import { ContextError } from '../../src/errors.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import { scriptedMemoryConfig } from './support/scripted-server.js';

type TransportKind = 'memory' | 'http';

async function registryFor(
  transport: TransportKind,
  fixtureOptions: Omit<GitNexusFixtureOptions, 'transport'> = {},
  registryOptions: Omit<McpServerRegistryOptions, 'mcpServers'> = {},
) {
  const fixture = await startGitNexusFixture({ transport, ...fixtureOptions });
  const servers = new McpServerRegistry({
    mcpServers: { gitnexus: fixture.serverConfig },
    ...registryOptions,
  });
  onTestFinished(async () => {
    await servers.close();
    await fixture.close();
  });
  return { fixture, servers };
}

describe.each<TransportKind>(['memory', 'http'])('McpServerRegistry over %s', (transport) => {
  it('lists gitnexus://repos and gitnexus://setup with their listed media types, in one page', async () => {
    const { servers } = await registryFor(transport);
    const result = await servers.listResources('gitnexus');
    expect(result.resources.map((resource) => [resource.uri, resource.mimeType])).toEqual([
      ['gitnexus://repos', 'text/yaml'],
      ['gitnexus://setup', 'text/markdown'],
    ]);
    expect(result.nextCursor).toBeUndefined();
  });

  it('lists the eight templates, the repo context among them', async () => {
    const { servers } = await registryFor(transport);
    const { resourceTemplates } = await servers.listResourceTemplates('gitnexus');
    expect(resourceTemplates).toHaveLength(8);
    expect(resourceTemplates.map((template) => template.uriTemplate)).toContain(
      'gitnexus://repo/{name}/context',
    );
  });

  it('reads a repo context as text/yaml, as the server sent it', async () => {
    const { servers } = await registryFor(transport);
    const result = await servers.readResource('gitnexus', 'gitnexus://repo/acme-shop/context');
    expect(result.contents).toHaveLength(1);
    expect(result.contents[0]).toMatchObject({
      uri: 'gitnexus://repo/acme-shop/context',
      mimeType: 'text/yaml',
    });
    expect((result.contents[0] as { text: string }).text).toContain('acme-shop');
  });

  it('follows cursors across pages with { all: true } and keeps nextCursor for one page', async () => {
    const { servers } = await registryFor(transport, { pageSize: 3, extraResources: 7 });
    const first = await servers.listResources('gitnexus');
    expect(first.resources).toHaveLength(3);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = await servers.listResources('gitnexus', { cursor: first.nextCursor });
    expect(second.resources[0]?.uri).not.toBe(first.resources[0]?.uri);
    const all = await servers.listResources('gitnexus', { all: true });
    expect(all.resources).toHaveLength(9);
    expect(new Set(all.resources.map((resource) => resource.uri)).size).toBe(9);
  });

  it('a listing longer than maxPages is an error, not a silently short list', async () => {
    const { servers } = await registryFor(transport, { pageSize: 2, extraResources: 7 }, { maxPages: 2 });
    await expect(servers.listResources('gitnexus', { all: true })).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      field: 'maxPages',
    });
  });

  it('lists both prompts and renders detect_impact with roles kept', async () => {
    const { servers } = await registryFor(transport);
    const { prompts } = await servers.listPrompts('gitnexus');
    expect(prompts.map((prompt) => prompt.name).sort()).toEqual(['detect_impact', 'generate_map']);
    const result = await servers.getPrompt('gitnexus', 'detect_impact', {
      scope: 'compare',
      base_ref: 'main',
    });
    expect(result.messages[0]?.role).toBe('user');
    expect(JSON.stringify(result.messages[0]?.content)).toContain('detect_changes');
  });

  it('a protocol error keeps its JSON-RPC code and data', async () => {
    const { servers } = await registryFor(transport, {
      faults: { errorUris: { 'gitnexus://repos': { code: -32002, message: 'gone' } } },
    });
    const error = await servers
      .readResource('gitnexus', 'gitnexus://repos')
      .catch((caught: unknown) => caught);
    expect(ContextError.isInstance(error)).toBe(true);
    // The fixture is on the v2 server package, which sends every -32002 as 2026-07-28's -32602 (on
    // 2025 sessions too); a 2025 server's own -32002 is test/mcp/remote-transports.test.ts's.
    expect(error).toMatchObject({ code: 'RESOURCE_NOT_FOUND', rpcCode: -32602, server: 'gitnexus' });
    await expect(servers.getPrompt('gitnexus', 'nope')).rejects.toMatchObject({
      code: 'PROTOCOL_ERROR',
      rpcCode: -32603,
    });
  });

  it('an "Error: …" body is RESOURCE_ERROR_BODY, unless the server opts out', async () => {
    const { servers, fixture } = await registryFor(transport);
    await expect(servers.readResource('gitnexus', 'gitnexus://bogus')).rejects.toMatchObject({
      code: 'RESOURCE_ERROR_BODY',
      message: expect.stringContaining('Unknown resource URI: gitnexus://bogus'),
    });
    const lenient = new McpServerRegistry({
      mcpServers: { gitnexus: { ...fixture.serverConfig, plainTextErrors: false } },
    });
    onTestFinished(() => lenient.close());
    const result = await lenient.readResource('gitnexus', 'gitnexus://bogus');
    expect(result.contents[0]).toMatchObject({
      mimeType: 'text/plain',
      text: 'Error: Unknown resource URI: gitnexus://bogus',
    });
  });

  it('an aborted call rejects with ABORTED, a slow one with READ_TIMEOUT', async () => {
    const { servers } = await registryFor(transport, { faults: { hangUris: ['gitnexus://repos'] } });
    const controller = new AbortController();
    const pending = servers.readResource('gitnexus', 'gitnexus://repos', { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED' });
    await expect(
      servers.readResource('gitnexus', 'gitnexus://repos', { timeoutMs: 100 }),
    ).rejects.toMatchObject({
      code: 'READ_TIMEOUT',
      rpcCode: -32001,
    });
  });

  it('a read with its own timeout races a connect timer only while connecting, none on an open session', async () => {
    const { servers } = await registryFor(transport);
    const timers = vi.spyOn(AbortSignal, 'timeout');
    onTestFinished(() => timers.mockRestore());
    await servers.readResource('gitnexus', 'gitnexus://repos', { timeoutMs: 5000 });
    expect(timers).toHaveBeenCalledTimes(1);
    const reads = ['gitnexus://repos', 'gitnexus://setup', 'gitnexus://repos'];
    const results = await Promise.all(
      reads.map((uri) => servers.readResource('gitnexus', uri, { timeoutMs: 5000 })),
    );
    expect(results.map((result) => result.contents[0]?.uri)).toEqual(reads);
    expect(timers).toHaveBeenCalledTimes(1);
  });

  it('relays list_changed and updated notifications as events', async () => {
    const { servers, fixture } = await registryFor(transport, { subscribe: true, listChanged: true });
    const events: string[] = [];
    servers.on('resources-list-changed', (event) => events.push(`list-changed ${event.server}`));
    servers.on('resource-updated', (event) => events.push(`updated ${event.uri}`));
    await servers.subscribeResource('gitnexus', 'gitnexus://repos');
    await fixture.reindex();
    await expect.poll(() => events.length).toBeGreaterThanOrEqual(2);
    expect(events).toContain('list-changed gitnexus');
    expect(events).toContain('updated gitnexus://repos');
  });
});

describe('McpServerRegistry without a fixture', () => {
  it('an unknown server name is UNKNOWN_SERVER', async () => {
    const servers = new McpServerRegistry({ mcpServers: {} });
    await expect(servers.listResources('ghost')).rejects.toMatchObject({
      code: 'UNKNOWN_SERVER',
      value: 'ghost',
    });
  });

  it.each([
    [{ mcpServers: { docs: { type: 'http', url: 'not a url' } } }, 'options.mcpServers.docs.url'],
    [{ mcpServers: { 'bad name!': { command: 'node' } } }, 'options.mcpServers.bad name!'],
    [{ mcpServers: {}, requestTimeoutMs: 0 }, 'options.requestTimeoutMs'],
  ])('invalid options are INVALID_OPTION naming the field (%j)', (options, field) => {
    expect(() => new McpServerRegistry(options as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', field }),
    );
  });

  it('a server that cannot be reached is CONNECT_FAILED', async () => {
    const listener = createServer((_, response) => response.writeHead(404).end());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const { port } = listener.address() as { port: number };
    await new Promise<void>((resolve) => listener.close(() => resolve()));
    const servers = new McpServerRegistry({
      mcpServers: { gone: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } },
    });
    await expect(servers.listResources('gone')).rejects.toMatchObject({
      code: 'CONNECT_FAILED',
      server: 'gone',
    });
    await servers.close();
  });

  it('a server whose cursors repeat is stopped by the guard', async () => {
    const servers = new McpServerRegistry({
      mcpServers: {
        looping: scriptedMemoryConfig({
          resources: [{ uri: 'x://same', name: 'same' }],
          loopingCursor: true,
        }),
      },
    });
    await expect(servers.listResources('looping', { all: true })).rejects.toMatchObject({
      code: 'PAGINATION_LOOP',
      value: 'again',
    });
    await servers.close();
  });
});

describe('McpServerRegistry config checks', () => {
  it('refuses credentials on a stdio server instead of dropping them', () => {
    expect(
      () =>
        new McpServerRegistry({
          mcpServers: { local: { command: 'node', auth: { type: 'bearer', token: 'x' } } as never },
        }),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTION',
        field: 'options.mcpServers.local.auth',
        message: expect.stringContaining('auth applies to remote servers'),
      }),
    );
  });
});
