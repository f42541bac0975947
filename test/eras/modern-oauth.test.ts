import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  type OAuthServerOptions,
  startOAuthServer,
  testUserHeader,
} from '../../fixtures/hosted/start-oauth-server.js';
import { MemoryOAuthStore } from '../../src/credentials/memory-oauth-store.js';
import type { AuthorizationRequest } from '../../src/credentials/oauth-authorizer.js';
import type { ContextError } from '../../src/errors.js';
import { endpointPolicySchema } from '../../src/mcp/endpoint-policy.js';
import { EraVerdicts } from '../../src/mcp/era-verdicts.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { ServerConnection } from '../../src/mcp/server-connection.js';
import { clientCredentialsRegistry } from '../support/client-credentials-registry.js';
import { signInAsPrincipal } from '../support/per-user-harness.js';

const redirectUrl = 'http://127.0.0.1:1/callback';

/** The user's browser: signs in as `user` and follows the authorization server to the redirect. */
async function signIn(request: AuthorizationRequest, user: string) {
  const response = await fetch(request.url, { redirect: 'manual', headers: { [testUserHeader]: user } });
  const back = new URL(response.headers.get('location') ?? '');
  return { code: back.searchParams.get('code') ?? '', state: back.searchParams.get('state') ?? '' };
}

async function setUp(options: OAuthServerOptions = {}) {
  const server = await startOAuthServer({ eras: 'modern-only', ...options });
  onTestFinished(() => server.close());
  return server;
}

const authorizer = () => ({
  redirectUrl,
  store: new MemoryOAuthStore(),
  authorize: (request: AuthorizationRequest) => signIn(request, 'ada'),
});

/**
 * A session to `url` whose endpoint is already known to be modern: the v2 client opens it with
 * no 2025 initialize, so every fetch of the authorization (metadata, registration, token) is the
 * v2 client's own.
 */
async function knownModern(url: string, denyHosts: string[] = []) {
  const verdicts = new EraVerdicts();
  verdicts.recordModern(url, '2026-07-28');
  const connection = new ServerConnection(
    'notes',
    {
      type: 'http',
      url,
      auth: { type: 'oauth', perUser: false, clientName: 'mcp-resource-context' },
      plainTextErrors: false,
      notSecret: [],
    },
    {
      reconnect: false,
      endpointPolicy: endpointPolicySchema.parse({ denyHosts }),
      connectTimeoutMs: 10_000,
      maxResponseBytes: 1_000_000,
      notify: () => undefined,
      eraVerdicts: verdicts,
      authorizer: authorizer(),
    },
  );
  onTestFinished(() => connection.close());
  return connection;
}

const failureOf = (pending: Promise<unknown>) =>
  pending.then(
    () => undefined,
    (error: unknown) => error as ContextError,
  );

/** An HTTP server on 127.0.0.1 that answers every request with a 307 to `target` + its path. */
async function startRedirector(target: string) {
  const hops: string[] = [];
  const redirector = createServer((request, response) => {
    hops.push(request.url ?? '/');
    response.writeHead(307, { location: `${target}${request.url ?? '/'}` }).end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  onTestFinished(() => new Promise<void>((resolve) => redirector.close(() => resolve())));
  return { origin: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}`, hops };
}

describe('OAuth on the 2026-07-28 path (the OAuth fixture with a modern-only MCP endpoint)', () => {
  it('an endpoint of unknown era behind OAuth: the probe is authorized by the v2 transport, and server/discover and the read carry the token', async () => {
    const server = await setUp();
    const servers = new McpServerRegistry({
      mcpServers: { notes: { type: 'http', url: server.url, auth: { type: 'oauth' } } },
      reconnect: false,
      authorizer: authorizer(),
    });
    onTestFinished(() => servers.close());

    const read = await servers.readResource('notes', 'private://notes');

    expect(read.contents[0]).toMatchObject({ text: 'notes of ada' });
    expect(servers.status('notes')).toMatchObject({ protocolVersion: '2026-07-28' });
    // The probe's 401, the authorization through our fetch, then the probe again with the token.
    expect(server.log.mcpMethods).toEqual(['server/discover', 'server/discover', 'resources/read']);
    expect(server.log.authorizations).toEqual([{ user: 'ada', scope: 'read admin', resource: server.url }]);
    expect(server.log.tokenRequests).toEqual([{ grantType: 'authorization_code', resource: server.url }]);

    // An access token that stops working on the modern session is refreshed there, by the v2
    // transport's own authorization: the user is not sent again.
    server.expireAccessTokens();
    const again = await servers.readResource('notes', 'private://notes');

    expect(again.contents[0]).toMatchObject({ text: 'notes of ada' });
    expect(server.log.mcpMethods.slice(3)).toEqual(['resources/read', 'resources/read']);
    expect(server.log.authorizations).toHaveLength(1);
    expect(server.log.tokenRequests.map((request) => request.grantType)).toEqual([
      'authorization_code',
      'refresh_token',
    ]);
  });

  it.each([
    ['modern-only', ['server/discover', 'server/discover', 'resources/read'], '2026-07-28'],
    // A 2025 server answers the probe as one of no later revision: initialize carries the token
    // the probe fetched (the same provider), so the server still gets one token request.
    [
      '2025',
      ['server/discover', 'server/discover', 'initialize', 'notifications/initialized', 'resources/read'],
      '2025-11-25',
    ],
  ] as const)(
    'client credentials on a %s server: probed, one token request, the session on its newest revision',
    async (eras, methods, protocolVersion) => {
      const server = await setUp({ eras });
      const servers = clientCredentialsRegistry(server);

      const read = await servers.readResource('notes', 'private://notes');

      expect(read.contents[0]).toMatchObject({ text: 'notes of service' });
      expect(servers.status('notes')).toMatchObject({ protocolVersion });
      expect(server.log.mcpMethods).toEqual(methods);
      expect(server.log.tokenRequests).toEqual([{ grantType: 'client_credentials', resource: server.url }]);
    },
  );

  it('a known-modern endpoint: the v2 client discovers, registers, authorizes with PKCE and the resource, with no initialize', async () => {
    const server = await setUp();
    const connection = await knownModern(server.url);

    const session = await connection.client();
    const read = await session.readResource({ uri: 'private://notes' });

    expect(read.contents[0]).toMatchObject({ text: 'notes of ada' });
    expect(server.log.mcpMethods).toEqual(['server/discover', 'server/discover', 'resources/read']);
    expect(server.log.registrations).toBe(1);
    expect(server.log.authorizations).toEqual([{ user: 'ada', scope: 'read admin', resource: server.url }]);
    expect(server.log.tokenRequests).toEqual([{ grantType: 'authorization_code', resource: server.url }]);
    expect(connection.status()).toMatchObject({ state: 'connected', protocolVersion: '2026-07-28' });
  });

  it('per user: each principal signs in on the modern leg and reads their own notes on 2026-07-28; no initialize is sent', async () => {
    const server = await setUp();
    const servers = new McpServerRegistry({
      mcpServers: { notes: { type: 'http', url: server.url, auth: { type: 'oauth', perUser: true } } },
      reconnect: false,
      authorizer: { redirectUrl, store: new MemoryOAuthStore(), authorize: signInAsPrincipal },
    });
    onTestFinished(() => servers.close());

    const ada = await servers.readResource('notes', 'private://notes', { principal: 'ada' });
    const bob = await servers.readResource('notes', 'private://notes', { principal: 'bob' });

    expect([ada.contents[0], bob.contents[0]]).toMatchObject([
      { text: 'notes of ada' },
      { text: 'notes of bob' },
    ]);
    expect(server.log.authorizations.map((entry) => entry.user)).toEqual(['ada', 'bob']);
    // Each principal's first server/discover is refused for want of a token (401), then authorized;
    // Bob's session adopts the verdict Ada's learnt (the registry's, shared by principals).
    expect(server.log.mcpMethods).toEqual([
      'server/discover',
      'server/discover',
      'resources/read',
      'server/discover',
      'server/discover',
      'resources/read',
    ]);
    for (const principal of ['ada', 'bob'])
      expect(servers.status('notes', { principal })).toMatchObject({ protocolVersion: '2026-07-28' });
  });

  describe("every URL the v2 client's authorization fetches passes the endpoint policy", () => {
    it('a 401 whose resource_metadata points at a denied host is refused without fetching it', async () => {
      const decoy = await setUp();
      const server = await setUp({
        resourceMetadataUrl: `http://localhost:${new URL(decoy.origin).port}/.well-known/oauth-protected-resource/mcp`,
      });
      const connection = await knownModern(server.url, ['localhost']);

      const failure = await failureOf(connection.client());

      expect(failure).toMatchObject({ code: 'ENDPOINT_DENIED', server: 'notes' });
      expect(server.log.mcpMethods).toEqual(['server/discover']);
      expect(decoy.log.requests).toEqual([]);
    });

    it('resource metadata that redirects to a denied host: the hop is never followed, and the client goes on at the server’s own origin, as on 2025', async () => {
      const decoy = await setUp();
      const redirector = await startRedirector(`http://localhost:${new URL(decoy.origin).port}`);
      const server = await setUp({
        resourceMetadataUrl: `${redirector.origin}/.well-known/oauth-protected-resource/mcp`,
      });
      const connection = await knownModern(server.url, ['localhost']);

      const session = await connection.client();

      // The hop to the denied host was refused before anything was sent there; the SDK (v1 and v2
      // alike) then takes the MCP server's own origin for its authorization server.
      expect(redirector.hops.length).toBeGreaterThan(0);
      expect(decoy.log.requests).toEqual([]);
      expect(server.log.requests).toContain('GET /.well-known/oauth-authorization-server');
      expect((await session.readResource({ uri: 'private://notes' })).contents[0]).toMatchObject({
        text: 'notes of ada',
      });
    });

    it('the token request never goes to a token endpoint on a denied host', async () => {
      const decoy = await setUp();
      const server = await setUp({ tokenEndpoint: `http://localhost:${new URL(decoy.origin).port}/token` });
      const connection = await knownModern(server.url, ['localhost']);

      const failure = await failureOf(connection.client());

      expect(failure).toMatchObject({ code: 'ENDPOINT_DENIED', server: 'notes' });
      expect(server.log.authorizations).toHaveLength(1);
      expect(server.log.tokenRequests).toEqual([]);
      expect(decoy.log.requests).toEqual([]);
    });
  });
});
