import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startGitNexusFixture } from '../../fixtures/index.js';
import { generateCredentialKey } from '../../src/credentials/credential-key.js';
import { openCredentialFile, writeCredentialFile } from '../../src/credentials/encrypted-credential-file.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import { type AuthGateOptions, startAuthGate } from './support/auth-gate.js';
import { collectErrorText } from './support/collect-error-text.js';
import { generateCertificates } from './support/generate-certificates.js';

const bearerToken = 'bearer-7f3a9c1e5d2b8f4a6c0e';
const apiKey = 'apikey-2b4d6f8a0c1e3a5c7e9b';
const oauthClient = { id: 'context-host', secret: 'client-secret-5e7a9c1b3d5f7a9c' };

async function startGatedFixture(admit: AuthGateOptions['admit'], extra: Partial<AuthGateOptions> = {}) {
  const fixture = await startGitNexusFixture({ transport: 'http' });
  onTestFinished(() => fixture.close());
  const gate = await startAuthGate({ target: fixture.url as string, admit, ...extra });
  return { fixture, gate };
}

function registry(options: McpServerRegistryOptions): McpServerRegistry {
  const servers = new McpServerRegistry({ reconnect: false, ...options });
  onTestFinished(() => servers.close());
  return servers;
}

function setEnv(name: string, value: string): void {
  process.env[name] = value;
  onTestFinished(() => {
    delete process.env[name];
  });
}

describe('credentials reach the server through Streamable HTTP', () => {
  it('a bearer token from the environment is sent as Authorization: Bearer', async () => {
    const { gate } = await startGatedFixture(
      (request) => request.headers.authorization === `Bearer ${bearerToken}`,
    );
    setEnv('MCP_TEST_BEARER', bearerToken);
    const servers = registry({
      mcpServers: {
        gated: { type: 'http', url: gate.url, auth: { type: 'bearer', token: { env: 'MCP_TEST_BEARER' } } },
      },
    });
    const { resources } = await servers.listResources('gated');
    expect(resources.map((resource) => resource.uri)).toContain('gitnexus://repos');
    expect(gate.admitted).toBeGreaterThan(0);
    expect(gate.refused).toBe(0);
  });

  it('an API key named in the encrypted credential file is sent in its header', async () => {
    const { gate } = await startGatedFixture((request) => request.headers['x-api-key'] === apiKey);
    const directory = mkdtempSync(join(tmpdir(), 'mcp-credentials-'));
    onTestFinished(() => rmSync(directory, { recursive: true, force: true }));
    const key = generateCredentialKey();
    await writeCredentialFile(join(directory, 'credentials.json'), { 'gitnexus-api-key': apiKey }, { key });
    const servers = registry({
      credentials: await openCredentialFile(join(directory, 'credentials.json'), { key }),
      mcpServers: {
        gated: {
          type: 'http',
          url: gate.url,
          auth: { type: 'apiKey', header: 'X-API-Key', value: { secret: 'gitnexus-api-key' } },
        },
      },
    });
    const read = await servers.readResource('gated', 'gitnexus://repos');
    expect(read.contents[0]).toMatchObject({ uri: 'gitnexus://repos' });
    expect(gate.refused).toBe(0);
  });

  it('OAuth client credentials: the SDK fetches a token from the local token endpoint and sends it', async () => {
    const { gate } = await startGatedFixture(
      (request, self) =>
        self.issuedTokens.some((token) => request.headers.authorization === `Bearer ${token}`),
      { oauthClient },
    );
    const servers = registry({
      mcpServers: {
        gated: {
          type: 'http',
          url: gate.url,
          auth: {
            type: 'oauth-client-credentials',
            tokenUrl: gate.tokenUrl,
            clientId: oauthClient.id,
            clientSecret: oauthClient.secret,
          },
        },
      },
    });
    const { prompts } = await servers.listPrompts('gated');
    expect(prompts.map((prompt) => prompt.name)).toEqual(['detect_impact', 'generate_map']);
    expect(gate.issuedTokens).toHaveLength(1);
    // The first request went without a token (401), then every one carried it.
    expect(gate.refused).toBe(1);
    expect(gate.admitted).toBeGreaterThan(0);
  });

  it('mTLS: a client certificate signed by the CA the server trusts opens the session', async () => {
    const certificates = generateCertificates();
    const { gate } = await startGatedFixture(() => true, {
      tls: {
        cert: certificates.serverCert,
        key: certificates.serverKey,
        ca: certificates.caCert,
        requestCert: true,
        rejectUnauthorized: true,
      },
    });
    const servers = registry({
      mcpServers: {
        gated: {
          type: 'http',
          url: gate.url,
          auth: {
            type: 'mtls',
            cert: certificates.clientCert,
            key: certificates.clientKey,
            ca: certificates.caCert,
          },
        },
      },
    });
    const read = await servers.readResource('gated', 'gitnexus://repos');
    expect(read.contents).toHaveLength(1);
    expect(gate.clientCertificates).toContain('mcp-client');
    expect(gate.clientCertificates).not.toContain('stranger');
  });
});

describe('no credential appears in errors, their causes, or server status', () => {
  it('a refused bearer token is redacted from a 401 whose body echoes the request headers', async () => {
    const { gate } = await startGatedFixture(() => false);
    const servers = registry({
      mcpServers: { gated: { type: 'http', url: gate.url, auth: { type: 'bearer', token: bearerToken } } },
    });
    const failure = await servers.listResources('gated').catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'CONNECT_FAILED', server: 'gated' });
    const text = collectErrorText(failure);
    // The echo is there (so the test can see a leak), the token is not.
    expect(text).toContain('you sent');
    expect(text).toContain('[redacted]');
    expect(text).not.toContain(bearerToken);
    expect(JSON.stringify(servers.status('gated'))).not.toContain(bearerToken);
  });

  it('a refused API key and a plain secret header are redacted the same way', async () => {
    const { gate } = await startGatedFixture(() => false);
    const servers = registry({
      mcpServers: {
        gated: {
          type: 'http',
          url: gate.url,
          headers: { 'X-Session-Token': 'plain-header-secret-1234' },
          auth: { type: 'apiKey', header: 'X-API-Key', value: apiKey },
        },
      },
    });
    const failure = await servers.readResource('gated', 'gitnexus://repos').catch((error: unknown) => error);
    const text = collectErrorText(failure);
    expect(text).toContain('you sent');
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain('plain-header-secret-1234');
  });

  it('a wrong OAuth client secret echoed by the token endpoint is redacted', async () => {
    const { gate } = await startGatedFixture(() => false, { oauthClient });
    const wrongSecret = 'wrong-secret-0a1b2c3d4e5f';
    const servers = registry({
      mcpServers: {
        gated: {
          type: 'http',
          url: gate.url,
          auth: {
            type: 'oauth-client-credentials',
            tokenUrl: gate.tokenUrl,
            clientId: oauthClient.id,
            clientSecret: wrongSecret,
          },
        },
      },
    });
    const failure = await servers.listResources('gated').catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'CONNECT_FAILED' });
    const text = collectErrorText(failure);
    expect(text).toContain('bad credentials');
    expect(text).not.toContain(wrongSecret);
    expect(gate.issuedTokens).toHaveLength(0);
  });

  it('an OAuth access token the server then refuses is redacted too', async () => {
    // The gate issues tokens but admits none: the retry with the token fails, echoing it.
    const { gate } = await startGatedFixture(() => false, { oauthClient });
    const servers = registry({
      mcpServers: {
        gated: {
          type: 'http',
          url: gate.url,
          auth: {
            type: 'oauth-client-credentials',
            tokenUrl: gate.tokenUrl,
            clientId: oauthClient.id,
            clientSecret: oauthClient.secret,
          },
        },
      },
    });
    const failure = await servers.listResources('gated').catch((error: unknown) => error);
    expect(gate.issuedTokens).toHaveLength(1);
    const text = collectErrorText(failure);
    expect(text).not.toContain(gate.issuedTokens[0]);
    expect(text).not.toContain(oauthClient.secret);
  });

  it('a client certificate the server does not trust fails to connect, and its key is nowhere', async () => {
    const certificates = generateCertificates();
    const { gate } = await startGatedFixture(() => true, {
      tls: {
        cert: certificates.serverCert,
        key: certificates.serverKey,
        ca: certificates.caCert,
        requestCert: true,
        rejectUnauthorized: true,
      },
    });
    const servers = registry({
      mcpServers: {
        gated: {
          type: 'http',
          url: gate.url,
          auth: {
            type: 'mtls',
            cert: certificates.strangerCert,
            key: certificates.strangerKey,
            ca: certificates.caCert,
          },
        },
      },
    });
    const failure = await servers.listResources('gated').catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'CONNECT_FAILED' });
    expect(gate.admitted).toBe(0);
    const keyBody = certificates.strangerKey.split('\n')[1] as string;
    expect(collectErrorText(failure)).not.toContain(keyBody);
  });

  it('a secret reference that resolves to nothing fails with CREDENTIAL_MISSING naming the field, not a value', async () => {
    const servers = registry({
      mcpServers: {
        gated: {
          type: 'http',
          url: 'http://127.0.0.1:9/mcp',
          auth: { type: 'bearer', token: { secret: 'absent' } },
        },
      },
    });
    await expect(servers.listResources('gated')).rejects.toMatchObject({
      code: 'CREDENTIAL_MISSING',
      field: 'auth.token',
      message: expect.stringContaining('no credential file'),
    });
  });
});
