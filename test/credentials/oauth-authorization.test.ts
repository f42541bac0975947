import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  type OAuthServer,
  type OAuthServerOptions,
  startOAuthServer,
  testUserHeader,
} from '../../fixtures/index.js';
import { credentialFileOAuthStore } from '../../src/credentials/credential-file-oauth-store.js';
import { generateCredentialKey } from '../../src/credentials/credential-key.js';
import { openCredentialFile } from '../../src/credentials/encrypted-credential-file.js';
import { MemoryOAuthStore } from '../../src/credentials/memory-oauth-store.js';
import type {
  AuthorizationRequest,
  OAuthAuthorizer,
  OAuthStore,
} from '../../src/credentials/oauth-authorizer.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import { clientCredentialsRegistry } from '../support/client-credentials-registry.js';
import { collectErrorText } from './support/collect-error-text.js';

const redirectUrl = 'http://127.0.0.1:1/callback';

/** The user's browser: signs in as `user` and follows the authorization server to the redirect. */
async function signIn(request: AuthorizationRequest, user: string) {
  const response = await fetch(request.url, { redirect: 'manual', headers: { [testUserHeader]: user } });
  const back = new URL(response.headers.get('location') ?? '');
  return { code: back.searchParams.get('code') ?? '', state: back.searchParams.get('state') ?? '' };
}

async function setUp(options: OAuthServerOptions = {}) {
  const server = await startOAuthServer(options);
  onTestFinished(() => server.close());
  return server;
}

function registry(url: string, authorizer: OAuthAuthorizer, extra: Partial<McpServerRegistryOptions> = {}) {
  const servers = new McpServerRegistry({
    mcpServers: { notes: { type: 'http', url, auth: { type: 'oauth' } } },
    reconnect: false,
    authorizer,
    ...extra,
  });
  onTestFinished(() => servers.close());
  return servers;
}

describe('OAuth authorization code (MCP authorization spec) through the SDK auth helpers', () => {
  it('discovers, registers, authorizes with PKCE and the resource indicator, and keeps the tokens', async () => {
    const server = await setUp();
    const store = new MemoryOAuthStore();
    const servers = registry(server.url, {
      redirectUrl,
      store,
      authorize: (request) => signIn(request, 'ada'),
    });
    const read = await servers.readResource('notes', 'private://notes');
    expect(read.contents[0]).toMatchObject({ text: 'notes of ada' });
    expect(server.log.registrations).toBe(1);
    // A loopback redirect is a native client's (SEP-837, OpenID Connect registration).
    expect(server.log.registered[0]).toMatchObject({
      application_type: 'native',
      redirect_uris: [redirectUrl],
    });
    // Scope from the resource's scopes_supported; resource = the MCP server (RFC 8707).
    expect(server.log.authorizations).toEqual([{ user: 'ada', scope: 'read admin', resource: server.url }]);
    expect(server.log.tokenRequests).toEqual([{ grantType: 'authorization_code', resource: server.url }]);
    expect(store.get({ server: 'notes' }, 'tokens')).toMatchObject({ token_type: 'Bearer' });
  });

  it('authorize() may return the code alone as a string: the token request is sent and the read goes through', async () => {
    const server = await setUp();
    const servers = registry(server.url, {
      redirectUrl,
      store: new MemoryOAuthStore(),
      authorize: async (request) => (await signIn(request, 'ada')).code,
    });
    const read = await servers.readResource('notes', 'private://notes');
    expect(read.contents[0]).toMatchObject({ text: 'notes of ada' });
    expect(server.log.tokenRequests).toEqual([{ grantType: 'authorization_code', resource: server.url }]);
  });

  it('an authorize() answer without a code is INVALID_OPTION naming authorize, and no token request is sent', async () => {
    const server = await setUp();
    const servers = registry(server.url, {
      redirectUrl,
      store: new MemoryOAuthStore(),
      authorize: async () => ({ code: '' }),
    });
    await expect(servers.readResource('notes', 'private://notes')).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      field: 'authorize',
    });
    expect(server.log.tokenRequests).toEqual([]);
  });

  it('without a code from the host the operation fails at once with AUTH_REQUIRED and the URL; completing it lets the next call through', async () => {
    const server = await setUp();
    const servers = registry(server.url, { redirectUrl, store: new MemoryOAuthStore() });
    const failure = await servers.listResources('notes').catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'AUTH_REQUIRED', server: 'notes', field: 'authorization' });
    const url = new URL(String((failure as { value: unknown }).value));
    expect(url.origin).toBe(server.origin);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(server.log.tokenRequests).toEqual([]);

    const answer = await signIn({ server: 'notes', url }, 'ada');
    await expect(
      servers.completeAuthorization('notes', { ...answer, state: 'forged' }),
    ).rejects.toMatchObject({
      code: 'AUTH_FAILED',
    });
    await servers.completeAuthorization('notes', answer);
    const { resources } = await servers.listResources('notes');
    expect(resources.map((resource) => resource.name)).toEqual(['notes of ada']);
  });

  it('an expired access token is refreshed with the refresh token, without sending the user again', async () => {
    const server = await setUp();
    const servers = registry(server.url, {
      redirectUrl,
      store: new MemoryOAuthStore(),
      authorize: (request) => signIn(request, 'ada'),
    });
    await servers.listResources('notes');
    server.expireAccessTokens();
    const { resources } = await servers.listResources('notes');
    expect(resources).toHaveLength(1);
    expect(server.log.authorizations).toHaveLength(1);
    expect(server.log.tokenRequests.map((request) => request.grantType)).toEqual([
      'authorization_code',
      'refresh_token',
    ]);
  });

  it('steps up on 403 insufficient_scope with the challenged scope, and stops with AUTH_STEP_UP_FAILED when the grant never suffices', async () => {
    const server = await setUp();
    const scopes: (string | undefined)[] = [];
    const servers = registry(server.url, {
      redirectUrl,
      store: new MemoryOAuthStore(),
      authorize: (request) => {
        scopes.push(request.url.searchParams.get('scope') ?? undefined);
        return signIn(request, 'ada');
      },
    });
    // The first grant covers what scopes_supported names; "forbidden" needs a scope never granted.
    await servers.listTools('notes');
    const failure = await servers.callTool('notes', 'forbidden').catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'AUTH_STEP_UP_FAILED',
      server: 'notes',
      field: 'scope',
      value: 'read admin never-granted',
      httpStatus: 403,
    });
    expect(collectErrorText(failure)).toContain('did not grant');
    // One step-up for the challenge; the same challenge again ends it (no loop).
    expect(scopes).toEqual(['read admin', 'read admin never-granted']);
  });

  it('a 403 insufficient_scope for a scope the token already holds is AUTH_STEP_UP_FAILED at once: the user is not asked again', async () => {
    const server = await setUp();
    const scopes: (string | undefined)[] = [];
    const servers = registry(server.url, {
      redirectUrl,
      store: new MemoryOAuthStore(),
      authorize: (request) => {
        scopes.push(request.url.searchParams.get('scope') ?? undefined);
        return signIn(request, 'ada');
      },
    });
    await servers.listTools('notes');
    const failure = await servers.callTool('notes', 'stubborn').catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'AUTH_STEP_UP_FAILED', field: 'scope', value: 'read' });
    expect(collectErrorText(failure)).toContain('already holds');
    expect(scopes).toEqual(['read admin']);
    expect(server.log.tokenRequests.map((request) => request.grantType)).toEqual(['authorization_code']);
    // The session stays usable: only that call failed.
    const { content } = await servers.callTool('notes', 'whoami');
    expect(content).toEqual([{ type: 'text', text: 'whoami: ada' }]);
  });

  it('tokens kept in the encrypted credential file survive a restart of the host', async () => {
    const server = await setUp();
    const directory = mkdtempSync(join(tmpdir(), 'mcp-oauth-'));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    const path = join(directory, 'credentials.json');
    const key = generateCredentialKey();
    const store: OAuthStore = credentialFileOAuthStore(path, { key });
    const first = registry(server.url, {
      redirectUrl,
      store,
      authorize: (request) => signIn(request, 'ada'),
    });
    await first.listResources('notes');
    await first.close();

    const second = registry(server.url, { redirectUrl, store: credentialFileOAuthStore(path, { key }) });
    const read = await second.readResource('notes', 'private://notes');
    expect(read.contents[0]).toMatchObject({ text: 'notes of ada' });
    expect(server.log.authorizations).toHaveLength(1);
    const file = await openCredentialFile(path, { key });
    expect(file.names).toContain('oauth/notes/-/tokens');
  });
});

describe('which client identity is used (pre-registered, then a stored one, then CIMD, then registration)', () => {
  const metadataUrl = 'https://host.example/oauth/client.json';

  /** Authorizes once with `auth` and answers the client_id the authorization request carried. */
  async function clientIdUsed(server: OAuthServer, auth: Record<string, unknown>): Promise<string | null> {
    let clientId: string | null = null;
    const servers = new McpServerRegistry({
      mcpServers: { notes: { type: 'http', url: server.url, auth: { type: 'oauth', ...auth } } },
      reconnect: false,
      authorizer: {
        redirectUrl,
        store: new MemoryOAuthStore(),
        authorize: (request) => {
          clientId = request.url.searchParams.get('client_id');
          return signIn(request, 'ada');
        },
      },
    });
    onTestFinished(() => servers.close());
    await servers.listResources('notes');
    return clientId;
  }

  it('a configured clientId wins over clientMetadataUrl, even where the authorization server takes CIMD', async () => {
    const server = await setUp({ clientIdMetadataDocuments: true });
    expect(await clientIdUsed(server, { clientId: 'pre-registered', clientMetadataUrl: metadataUrl })).toBe(
      'pre-registered',
    );
    expect(server.log.registrations).toBe(0);
  });

  it('clientMetadataUrl is the client id where the authorization server supports CIMD; nothing is registered', async () => {
    const server = await setUp({ clientIdMetadataDocuments: true });
    expect(await clientIdUsed(server, { clientMetadataUrl: metadataUrl })).toBe(metadataUrl);
    expect(server.log.registrations).toBe(0);
  });

  it('where it does not, the client registers dynamically despite clientMetadataUrl', async () => {
    const server = await setUp();
    expect(await clientIdUsed(server, { clientMetadataUrl: metadataUrl })).toMatch(/^client-/);
    expect(server.log.registrations).toBe(1);
  });
});

describe('a protected resource that is not this server (RFC 9728 §3.3)', () => {
  it('authorization code: AUTH_RESOURCE_MISMATCH naming the advertised resource, no token requested, not retried as a connect failure', async () => {
    const server = await setUp({ resource: 'https://elsewhere.example/mcp' });
    const servers = registry(server.url, {
      redirectUrl,
      store: new MemoryOAuthStore(),
      authorize: (request) => signIn(request, 'ada'),
    });
    const failure = await servers.listResources('notes').catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'AUTH_RESOURCE_MISMATCH',
      server: 'notes',
      field: 'resource',
      value: 'https://elsewhere.example/mcp',
    });
    expect(server.log.authorizations).toEqual([]);
    expect(server.log.tokenRequests).toEqual([]);
    // It waits for the operator: no backoff is counted for it.
    expect(servers.status('notes')).toMatchObject({ consecutiveFailures: 0 });
  });

  it('client credentials discovered from the server: AUTH_RESOURCE_MISMATCH too, the secret never sent', async () => {
    const server = await setUp({ resource: 'https://elsewhere.example/mcp' });
    const servers = clientCredentialsRegistry(server);
    await expect(servers.listResources('notes')).rejects.toMatchObject({
      code: 'AUTH_RESOURCE_MISMATCH',
      value: 'https://elsewhere.example/mcp',
    });
    expect(server.log.tokenRequests).toEqual([]);
  });

  it('a matching resource lets client credentials through (the same fixture, the same flow)', async () => {
    const server = await setUp();
    const servers = clientCredentialsRegistry(server);
    const { resources } = await servers.listResources('notes');
    expect(resources.map((resource) => resource.name)).toEqual(['notes of service']);
    expect(server.log.tokenRequests).toEqual([{ grantType: 'client_credentials', resource: server.url }]);
  });
});

describe('every URL OAuth fetches passes the endpoint policy', () => {
  it('a 401 whose resource_metadata points at a denied host is refused without fetching it', async () => {
    const decoy = await setUp();
    const server = await setUp({
      resourceMetadataUrl: `http://localhost:${new URL(decoy.origin).port}/.well-known/oauth-protected-resource/mcp`,
    });
    const servers = registry(
      server.url,
      { redirectUrl, store: new MemoryOAuthStore(), authorize: (request) => signIn(request, 'ada') },
      { endpointPolicy: { denyHosts: ['localhost'] } },
    );
    const failure = await servers.listResources('notes').catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'ENDPOINT_DENIED', server: 'notes' });
    expect(decoy.log.requests).toEqual([]);
  });

  it('the token request never goes to a token endpoint on a denied host', async () => {
    const decoy = await setUp();
    const server = await setUp({ tokenEndpoint: `http://localhost:${new URL(decoy.origin).port}/token` });
    const servers = registry(
      server.url,
      { redirectUrl, store: new MemoryOAuthStore(), authorize: (request) => signIn(request, 'ada') },
      { endpointPolicy: { denyHosts: ['localhost'] } },
    );
    const failure = await servers.listResources('notes').catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'ENDPOINT_DENIED' });
    expect(server.log.authorizations).toHaveLength(1);
    expect(server.log.tokenRequests).toEqual([]);
    expect(decoy.log.requests).toEqual([]);
  });
});

describe("the authorization answer's iss (RFC 9207, MCP 2026-07-28 SEP-2468)", () => {
  /** The browser, as signIn, answering with the redirect's iss as well when it has one. */
  async function signInWithIss(request: AuthorizationRequest) {
    const response = await fetch(request.url, { redirect: 'manual', headers: { [testUserHeader]: 'ada' } });
    const back = new URL(response.headers.get('location') ?? '');
    const iss = back.searchParams.get('iss');
    return {
      code: back.searchParams.get('code') ?? '',
      state: back.searchParams.get('state') ?? '',
      ...(iss !== null && { iss }),
    };
  }

  it("an iss that is the authorization server's issuer, as it said it would send: the code is redeemed", async () => {
    const server = await setUp({ issParameter: 'advertised' });
    const servers = registry(server.url, {
      redirectUrl,
      store: new MemoryOAuthStore(),
      authorize: signInWithIss,
    });

    const read = await servers.readResource('notes', 'private://notes');

    expect(read.contents[0]).toMatchObject({ text: 'notes of ada' });
    expect(server.log.tokenRequests).toEqual([{ grantType: 'authorization_code', resource: server.url }]);
  });

  it('an iss that differs from the issuer (a trailing slash, not announced): AUTH_FAILED, the code never redeemed', async () => {
    const server = await setUp({ issParameter: 'wrong' });
    const servers = registry(server.url, {
      redirectUrl,
      store: new MemoryOAuthStore(),
      authorize: signInWithIss,
    });

    const failure = await servers.readResource('notes', 'private://notes').catch((error: unknown) => error);

    expect(failure).toMatchObject({ code: 'AUTH_FAILED', server: 'notes', field: 'iss' });
    expect((failure as Error).message).toContain(`"${server.origin}/"`);
    expect(server.log.tokenRequests).toEqual([]);
  });

  it('authorization-server metadata naming another issuer is not used: AUTH_FAILED, no registration, no authorization, no token request', async () => {
    const server = await setUp({ metadataIssuer: 'https://attacker.example.com' });
    let asked = 0;
    const servers = registry(server.url, {
      redirectUrl,
      store: new MemoryOAuthStore(),
      authorize: async (request) => {
        asked++;
        return signInWithIss(request);
      },
    });

    const failure = await servers.readResource('notes', 'private://notes').catch((error: unknown) => error);

    expect(failure).toMatchObject({ code: 'AUTH_FAILED', server: 'notes', field: 'issuer' });
    expect((failure as Error).message).toContain('"https://attacker.example.com"');
    expect(asked).toBe(0);
    expect(server.log.registrations).toBe(0);
    expect(server.log.tokenRequests).toEqual([]);
  });

  it('a server that says it sends iss and an answer without one: AUTH_FAILED naming it, the code never redeemed', async () => {
    const server = await setUp({ issParameter: 'advertised-missing' });
    const servers = registry(server.url, {
      redirectUrl,
      store: new MemoryOAuthStore(),
      authorize: signInWithIss,
    });

    const failure = await servers.readResource('notes', 'private://notes').catch((error: unknown) => error);

    expect(failure).toMatchObject({ code: 'AUTH_FAILED', field: 'iss' });
    expect((failure as Error).message).toContain('authorization_response_iss_parameter_supported');
    expect(server.log.tokenRequests).toEqual([]);
  });
});
