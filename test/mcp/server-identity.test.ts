import { describe, expect, it } from 'vitest';
import { MemoryOAuthStore } from '../../src/credentials/memory-oauth-store.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';

type Entry = McpServerRegistryOptions['mcpServers'][string];

/** The identity a fresh registry gives `crm` (no session is opened for it). */
function identityOf(entry: Entry, options: Omit<McpServerRegistryOptions, 'mcpServers'> = {}) {
  return new McpServerRegistry({ mcpServers: { crm: entry }, ...options }).identityOf('crm');
}

const remote = { type: 'http' as const, url: 'https://crm.example/mcp' };

describe('server identity (what caches key a server by)', () => {
  it('entries that reach the same server with the same credentials agree; any difference in where or as whom does not', () => {
    const base = identityOf({ ...remote, headers: { 'X-API-Key': 'k1' } });
    expect(identityOf({ ...remote, headers: { 'X-API-Key': 'k1' } })).toBe(base);
    // The transport flavour reaches the same server.
    expect(identityOf({ ...remote, type: 'auto', headers: { 'X-API-Key': 'k1' } })).toBe(base);
    const different = [
      identityOf({ ...remote, headers: { 'X-API-Key': 'k2' } }),
      identityOf({ ...remote, url: 'https://crm.example/other', headers: { 'X-API-Key': 'k1' } }),
      identityOf({ ...remote, headers: { 'X-API-Key': 'k1' } }, { maxReadBytes: 1024 }),
      identityOf({ ...remote, headers: { 'X-API-Key': 'k1' }, plainTextErrors: false }),
      identityOf({ ...remote, headers: { 'X-API-Key': 'k1' } }, { endpointPolicy: { preset: 'strict' } }),
      new McpServerRegistry({
        mcpServers: { other: { ...remote, headers: { 'X-API-Key': 'k1' } } },
      }).identityOf('other'),
    ];
    expect(new Set([base, ...different]).size).toBe(different.length + 1);
    expect(String(base)).not.toContain('k1');
  });

  it('stdio: the command, arguments, directory and environment decide it', () => {
    const entry = { command: 'node', args: ['crm.js'], env: { CRM_TOKEN: 'acme' } };
    expect(identityOf(entry)).toBe(identityOf({ ...entry }));
    expect(identityOf({ ...entry, env: { CRM_TOKEN: 'globex' } })).not.toBe(identityOf(entry));
    expect(identityOf({ ...entry, args: ['crm.js', '--tenant=b'] })).not.toBe(identityOf(entry));
    expect(identityOf({ ...entry, cwd: '/srv/b' })).not.toBe(identityOf(entry));
  });

  it('references count by the value they resolve to; one that cannot be resolved rejects, and is asked again', async () => {
    const entry = (value: { env: string } | { secret: string }) => ({
      ...remote,
      auth: { type: 'bearer' as const, token: value },
    });
    process.env.MCP_CONTEXT_IDENTITY_TEST = 'token-a';
    let fromEnv: string | Promise<string>;
    try {
      fromEnv = identityOf(entry({ env: 'MCP_CONTEXT_IDENTITY_TEST' }));
    } finally {
      delete process.env.MCP_CONTEXT_IDENTITY_TEST;
    }
    expect(fromEnv).toBe(identityOf({ ...remote, auth: { type: 'bearer', token: 'token-a' } }));

    let secret: string | undefined;
    const registry = new McpServerRegistry({
      mcpServers: { crm: entry({ secret: 'crm' }) },
      credentials: { get: async () => secret },
    });
    await expect(registry.identityOf('crm')).rejects.toMatchObject({
      code: 'CREDENTIAL_MISSING',
      server: 'crm',
    });
    secret = 'token-a';
    await expect(registry.identityOf('crm')).resolves.toBe(fromEnv);
    // Resolved once, known at once from then on.
    expect(registry.identityOf('crm')).toBe(fromEnv);
  });

  it('OAuth: the token store decides whose content it is, unless the authorizer names its tenant', () => {
    const entry = { ...remote, auth: { type: 'oauth' as const, perUser: true } };
    const authorizer = (tenant?: string) => ({
      redirectUrl: 'http://127.0.0.1:1/callback',
      store: new MemoryOAuthStore(),
      ...(tenant !== undefined && { tenant }),
    });
    const shared = authorizer();
    expect(identityOf(entry, { authorizer: shared })).toBe(identityOf(entry, { authorizer: shared }));
    expect(identityOf(entry, { authorizer: authorizer() })).not.toBe(
      identityOf(entry, { authorizer: authorizer() }),
    );
    expect(identityOf(entry, { authorizer: authorizer('acme') })).toBe(
      identityOf(entry, { authorizer: authorizer('acme') }),
    );
    expect(identityOf(entry, { authorizer: authorizer('acme') })).not.toBe(
      identityOf(entry, { authorizer: authorizer('globex') }),
    );
  });

  it('an unknown server is UNKNOWN_SERVER', async () => {
    const registry = new McpServerRegistry({ mcpServers: {} });
    await expect(registry.identityOf('crm')).rejects.toMatchObject({ code: 'UNKNOWN_SERVER' });
  });
});
