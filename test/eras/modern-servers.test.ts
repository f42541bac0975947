import { afterEach, describe, expect, it } from 'vitest';
import { startStatelessServer } from '../../fixtures/index.js';
import {
  type ModernServer,
  type ModernServerOptions,
  startModernServer,
} from '../../fixtures/modern/start-modern-server.js';
import type { ContextError } from '../../src/errors.js';
import { endpointPolicySchema } from '../../src/mcp/endpoint-policy.js';
import { EraVerdicts } from '../../src/mcp/era-verdicts.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { ServerConnection } from '../../src/mcp/server-connection.js';
import { createScriptedServer } from '../mcp/support/scripted-server.js';

const note = { uri: 'note://a', name: 'a', text: 'alpha', mimeType: 'text/plain' };

describe('servers of the 2026-07-28 revision (fixtures on the MCP SDK v2 server package)', () => {
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.allSettled(open.splice(0).map((item) => item.close()));
  });
  const start = async (
    eras: ModernServerOptions['eras'],
    extra: Partial<ModernServerOptions> = {},
  ): Promise<ModernServer> => {
    const server = await startModernServer({ eras, resources: [note], ...extra });
    open.push(server);
    return server;
  };
  const registry = (options: ConstructorParameters<typeof McpServerRegistry>[0]) => {
    const servers = new McpServerRegistry({ reconnect: false, ...options });
    open.push(servers);
    return servers;
  };
  const failureOf = (pending: Promise<unknown>) =>
    pending.then(
      () => undefined,
      (error: unknown) => error as ContextError,
    );

  it("an unknown resource on a modern-only server (2026-07-28's -32602) is RESOURCE_NOT_FOUND, as -32002 is on 2025", async () => {
    const server = await start('modern-only');
    const servers = registry({ mcpServers: { modern: { type: 'http', url: server.url } } });

    const missing = await failureOf(servers.readResource('modern', 'note://missing'));

    expect(missing).toMatchObject({ code: 'RESOURCE_NOT_FOUND', rpcCode: -32602, server: 'modern' });
    expect(missing?.message).toContain('note://missing');
  });

  it('a dual-era server is reached over its modern leg: server/discover, no initialize, and the status says 2026-07-28', async () => {
    const server = await start('dual-era', {
      resources: [{ ...note, cacheHint: { ttlMs: 500, cacheScope: 'private' } }],
    });
    const servers = registry({ mcpServers: { dual: { type: 'http', url: server.url } } });

    const read = await servers.readResource('dual', 'note://a');

    expect(read.contents[0]).toMatchObject({ uri: 'note://a', text: 'alpha' });
    // Its hints come with it (its 2025 leg sends none).
    expect(read).toMatchObject({ ttlMs: 500, cacheScope: 'private' });
    expect(server.posts.map((post) => post.method)).toEqual(['server/discover', 'resources/read']);
    expect(servers.status('dual')).toMatchObject({ state: 'connected', protocolVersion: '2026-07-28' });
  });

  it('a modern-only server is reached at 2026-07-28 by the server/discover probe, with no initialize', async () => {
    const server = await start('modern-only');
    const servers = registry({ mcpServers: { modern: { type: 'http', url: server.url } } });

    const read = await servers.readResource('modern', 'note://a');

    expect(read.contents[0]).toMatchObject({ uri: 'note://a', text: 'alpha' });
    expect(server.posts.map((post) => post.method)).toEqual(['server/discover', 'resources/read']);
    // MCP 2026-07-28: the method and name in headers, the revision in every request's _meta.
    expect(server.posts[1]).toMatchObject({
      mcpMethod: 'resources/read',
      mcpName: 'note://a',
      protocolVersionHeader: '2026-07-28',
      metaProtocolVersion: '2026-07-28',
    });
    expect(servers.status('modern')).toMatchObject({
      state: 'connected',
      transport: 'http',
      protocolVersion: '2026-07-28',
      serverInfo: { name: 'modern-fixture' },
    });
    expect((await servers.listResources('modern')).resources.map((resource) => resource.uri)).toEqual([
      'note://a',
    ]);
  });

  it('type "auto" probes too, and tries no GET stream', async () => {
    const server = await start('modern-only');
    const servers = registry({ mcpServers: { modern: { type: 'auto', url: server.url } } });

    await servers.readResource('modern', 'note://a');

    expect(server.posts.map((post) => post.method)).toEqual(['server/discover', 'resources/read']);
    expect(servers.status('modern')).toMatchObject({ transport: 'http', protocolVersion: '2026-07-28' });
  });

  it("the era verdict is kept: the endpoint's next session adopts its revision (pinned), with no initialize", async () => {
    const server = await start('modern-only');
    const verdicts = new EraVerdicts();
    const connect = async () => {
      const connection = new ServerConnection(
        'modern',
        { type: 'http', url: server.url, plainTextErrors: false, notSecret: [] },
        {
          reconnect: false,
          endpointPolicy: endpointPolicySchema.parse({}),
          connectTimeoutMs: 5_000,
          maxResponseBytes: 1_000_000,
          notify: () => undefined,
          eraVerdicts: verdicts,
        },
      );
      open.push(connection);
      await connection.client();
      return connection;
    };

    await connect();
    expect(server.posts.map((post) => post.method)).toEqual(['server/discover']);
    expect(verdicts.modernVersionOf(server.url)).toBe('2026-07-28');
    const second = await connect();

    expect(server.posts.map((post) => post.method)).toEqual(['server/discover', 'server/discover']);
    expect(second.status()).toMatchObject({ state: 'connected', protocolVersion: '2026-07-28' });
  });

  it('a 2025 server answers the probe as a server of no later revision: initialize follows, and the endpoint is probed again only after an hour', async () => {
    const host = await startStatelessServer({
      createServer: () =>
        createScriptedServer({
          resources: [{ uri: 'x://a', name: 'a' }],
          contents: { 'x://a': [{ uri: 'x://a', mimeType: 'text/plain', text: 'alpha' }] },
        }),
    });
    open.push(host);
    let now = Date.parse('2026-12-06T00:00:00Z');
    const verdicts = new EraVerdicts(() => now);
    const connect = async () => {
      const connection = new ServerConnection(
        'old',
        { type: 'http', url: host.url, plainTextErrors: false, notSecret: [] },
        {
          reconnect: false,
          endpointPolicy: endpointPolicySchema.parse({}),
          connectTimeoutMs: 5_000,
          maxResponseBytes: 1_000_000,
          notify: () => undefined,
          eraVerdicts: verdicts,
        },
      );
      open.push(connection);
      await connection.client();
      return connection;
    };
    const opened = () =>
      host.methods.filter((method) => method === 'server/discover' || method === 'initialize');

    const first = await connect();
    expect(first.status()).toMatchObject({ state: 'connected', protocolVersion: '2025-11-25' });
    expect(opened()).toEqual(['server/discover', 'initialize']);
    expect(verdicts.isLegacy(host.url)).toBe(true);

    await connect();
    expect(opened()).toEqual(['server/discover', 'initialize', 'initialize']);

    now += 60 * 60 * 1000 + 1;
    await connect();
    expect(opened()).toEqual([
      'server/discover',
      'initialize',
      'initialize',
      'server/discover',
      'initialize',
    ]);
  });

  it('a probe that reaches no server records nothing: the 2025 handshake fails as it always did, and the next attempt probes again', async () => {
    const verdicts = new EraVerdicts();
    const url = 'http://127.0.0.1:1/mcp';
    const connection = new ServerConnection(
      'gone',
      { type: 'http', url, plainTextErrors: false, notSecret: [] },
      {
        reconnect: false,
        endpointPolicy: endpointPolicySchema.parse({}),
        connectTimeoutMs: 5_000,
        maxResponseBytes: 1_000_000,
        notify: () => undefined,
        eraVerdicts: verdicts,
      },
    );
    open.push(connection);

    const failure = await failureOf(connection.client());

    expect(failure).toMatchObject({ code: 'CONNECT_FAILED', server: 'gone' });
    expect(verdicts.isLegacy(url)).toBe(false);
    expect(verdicts.modernVersionOf(url)).toBeUndefined();
  });

  it('-32022 to the probe naming only revisions this client does not speak: CONNECT_FAILED says which, and nothing else is sent', async () => {
    const server = await start('modern-only', {
      intercept: (post) =>
        Response.json(
          {
            jsonrpc: '2.0',
            id: post.id ?? null,
            error: {
              code: -32022,
              message: 'Unsupported protocol version',
              data: { supported: ['2099-01-01'], requested: '2025-11-25' },
            },
          },
          { status: 400 },
        ),
    });
    const servers = registry({ mcpServers: { future: { type: 'http', url: server.url } } });

    const failure = await failureOf(servers.readResource('future', 'note://a'));

    expect(failure).toMatchObject({ code: 'CONNECT_FAILED', server: 'future' });
    expect(failure?.message).toContain('the server speaks only 2099-01-01; this client speaks 2026-07-28');
    expect(server.posts.map((post) => post.method)).toEqual(['server/discover']);
  });

  it('close() while server/discover is unanswered resolves at once: the pending call is SESSION_CLOSED', async () => {
    const server = await start('modern-only', {
      intercept: (post) =>
        post.method === 'server/discover' ? new Promise<Response>(() => undefined) : undefined,
    });
    const servers = new McpServerRegistry({
      mcpServers: { modern: { type: 'http', url: server.url } },
      reconnect: false,
      requestTimeoutMs: 3_600_000,
    });
    const call = failureOf(servers.readResource('modern', 'note://a'));
    await expect.poll(() => server.posts.map((post) => post.method)).toEqual(['server/discover']);

    const closing = performance.now();
    await servers.close();

    expect(performance.now() - closing).toBeLessThan(2_000);
    expect(await call).toMatchObject({ code: 'SESSION_CLOSED', server: 'modern' });
  });

  describe('every request of the v2 client goes through our fetch', () => {
    it('a redirect of server/discover to a denied host is refused before it is followed (ENDPOINT_DENIED)', async () => {
      let port = 0;
      const server = await start('modern-only', {
        intercept: (post) =>
          post.method === 'server/discover' && post.host?.startsWith('127.0.0.1')
            ? new Response(null, { status: 307, headers: { location: `http://localhost:${port}/mcp` } })
            : undefined,
      });
      port = Number(new URL(server.url).port);
      const servers = registry({
        mcpServers: { modern: { type: 'http', url: server.url } },
        endpointPolicy: { denyHosts: ['localhost'] },
      });

      const failure = await failureOf(servers.readResource('modern', 'note://a'));

      expect(failure).toMatchObject({ code: 'ENDPOINT_DENIED', server: 'modern' });
      // The probe's redirect: refused, and no initialize after it (the endpoint sent us elsewhere).
      expect(server.posts.map((post) => [post.method, post.host?.split(':')[0]])).toEqual([
        ['server/discover', '127.0.0.1'],
      ]);
    });

    it.each([
      ['resources/read', (servers: McpServerRegistry) => servers.readResource('modern', 'note://a')],
      ['resources/list', (servers: McpServerRegistry) => servers.listResources('modern')],
      ['resources/templates/list', (servers: McpServerRegistry) => servers.listResourceTemplates('modern')],
    ])(
      'a redirect of %s to a denied host is refused before it is followed (ENDPOINT_DENIED), the session kept',
      async (method, send) => {
        let port = 0;
        const server = await start('modern-only', {
          intercept: (post) =>
            post.method === method && post.host?.startsWith('127.0.0.1')
              ? new Response(null, { status: 307, headers: { location: `http://localhost:${port}/mcp` } })
              : undefined,
        });
        port = Number(new URL(server.url).port);
        const servers = registry({
          mcpServers: { modern: { type: 'http', url: server.url } },
          endpointPolicy: { denyHosts: ['localhost'] },
        });

        const failure = await failureOf(send(servers));

        expect(failure).toMatchObject({ code: 'ENDPOINT_DENIED', server: 'modern' });
        expect(server.posts.map((post) => [post.method, post.host?.split(':')[0]])).toEqual([
          ['server/discover', '127.0.0.1'],
          [method, '127.0.0.1'],
        ]);
        expect(servers.status('modern')).toMatchObject({ state: 'connected', protocolVersion: '2026-07-28' });
      },
    );

    it('the bearer token goes on every modern request, and is dropped on a redirect to another origin', async () => {
      let port = 0;
      const server = await start('modern-only', {
        intercept: (post) =>
          post.method === 'resources/read' && post.host?.startsWith('127.0.0.1')
            ? new Response(null, { status: 307, headers: { location: `http://localhost:${port}/mcp` } })
            : undefined,
      });
      port = Number(new URL(server.url).port);
      const servers = registry({
        mcpServers: {
          modern: { type: 'http', url: server.url, auth: { type: 'bearer', token: 'sekrit-token' } },
        },
      });

      const read = await servers.readResource('modern', 'note://a');

      expect(read.contents[0]).toMatchObject({ text: 'alpha' });
      expect(server.posts.map((post) => [post.method, post.host?.split(':')[0], post.authorization])).toEqual(
        [
          ['server/discover', '127.0.0.1', 'Bearer sekrit-token'],
          ['resources/read', '127.0.0.1', 'Bearer sekrit-token'],
          ['resources/read', 'localhost', undefined],
        ],
      );
    });

    it('a reply past maxResponseBytes is LIMIT_EXCEEDED', async () => {
      const server = await start('modern-only', {
        resources: [{ ...note, text: 'x'.repeat(200_000) }],
      });
      const servers = registry({
        mcpServers: { modern: { type: 'http', url: server.url } },
        maxReadBytes: 50_000,
        maxResponseBytes: 100_000,
      });

      const failure = await failureOf(servers.readResource('modern', 'note://a'));

      expect(failure).toMatchObject({ code: 'LIMIT_EXCEEDED', server: 'modern' });
      expect(server.readCount('note://a')).toBe(1);
    });

    it('a read that is never answered is READ_TIMEOUT after the request timeout', async () => {
      const server = await start('modern-only', {
        intercept: (post) =>
          post.method === 'resources/read' ? new Promise<Response>(() => undefined) : undefined,
      });
      const servers = registry({
        mcpServers: { modern: { type: 'http', url: server.url } },
        requestTimeoutMs: 400,
      });
      await servers.listResources('modern');

      const started = performance.now();
      const failure = await failureOf(servers.readResource('modern', 'note://a'));

      expect(failure).toMatchObject({ code: 'READ_TIMEOUT', server: 'modern' });
      expect(performance.now() - started).toBeLessThan(5_000);
    });

    it('an error that echoes the credential reaches the host without it', async () => {
      const server = await start('modern-only', {
        intercept: (post) =>
          post.method === 'resources/read'
            ? Response.json({
                jsonrpc: '2.0',
                id: post.id ?? null,
                error: { code: -32603, message: `refused: ${post.authorization}` },
              })
            : undefined,
      });
      const servers = registry({
        mcpServers: {
          modern: { type: 'http', url: server.url, auth: { type: 'bearer', token: 'sekrit-token' } },
        },
      });

      const failure = await failureOf(servers.readResource('modern', 'note://a'));

      expect(failure).toMatchObject({ code: 'PROTOCOL_ERROR', server: 'modern', rpcCode: -32603 });
      expect(failure?.message).toContain('refused: Bearer');
      expect(JSON.stringify({ message: failure?.message, status: servers.status('modern') })).not.toContain(
        'sekrit-token',
      );
    });
  });
});
