import { describe, expect, it, onTestFinished } from 'vitest';
import { startOAuthServer } from '../../fixtures/index.js';
import { MemoryAuditSink } from '../../src/audit/memory-audit-sink.js';
import { MemoryOAuthStore } from '../../src/credentials/memory-oauth-store.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import { signInAsPrincipal } from '../support/per-user-harness.js';
import { scriptedMemoryConfig } from './support/scripted-server.js';

async function setUp(extra: Partial<McpServerRegistryOptions> = {}) {
  const server = await startOAuthServer();
  const store = new MemoryOAuthStore();
  const sessions: string[] = [];
  const servers = new McpServerRegistry({
    mcpServers: {
      mine: { type: 'http', url: server.url, auth: { type: 'oauth', perUser: true } },
      docs: scriptedMemoryConfig({
        resources: [{ uri: 'docs://a', name: 'a' }],
        contents: { 'docs://a': [{ uri: 'docs://a', text: 'shared docs' }] },
      }),
    },
    reconnect: false,
    authorizer: { redirectUrl: 'http://127.0.0.1:1/callback', store, authorize: signInAsPrincipal },
    ...extra,
  });
  servers.on('session-opened', (event) => sessions.push(`${event.server}:${event.principal ?? '-'}`));
  onTestFinished(async () => {
    await servers.close();
    await server.close();
  });
  return { server, servers, store, sessions };
}

describe('principals on a per-user server', () => {
  it('each principal has its own session, tokens and content', async () => {
    const { servers, store, sessions, server } = await setUp();
    const ada = await servers.readResource('mine', 'private://notes', { principal: 'ada' });
    const bob = await servers.readResource('mine', 'private://notes', { principal: 'bob' });
    const adaAgain = await servers.readResource('mine', 'private://notes', { principal: 'ada' });
    expect(ada.contents[0]).toMatchObject({ text: 'notes of ada' });
    expect(bob.contents[0]).toMatchObject({ text: 'notes of bob' });
    expect(adaAgain.contents[0]).toMatchObject({ text: 'notes of ada' });
    expect(sessions).toEqual(['mine:ada', 'mine:bob']);
    expect(server.log.authorizations.map((entry) => entry.user)).toEqual(['ada', 'bob']);
    expect(store.get({ server: 'mine', principal: 'ada' }, 'tokens')).toBeDefined();
    expect(store.get({ server: 'mine', principal: 'bob' }, 'tokens')).toBeDefined();
    expect(store.get({ server: 'mine' }, 'tokens')).toBeUndefined();
  });

  it('a call without a principal is PRINCIPAL_REQUIRED; a shared server takes any principal or none', async () => {
    const { servers, server } = await setUp();
    await expect(servers.listResources('mine')).rejects.toMatchObject({
      code: 'PRINCIPAL_REQUIRED',
      server: 'mine',
      field: 'principal',
    });
    expect(server.log.requests).toEqual([]);
    const forAnyone = await servers.readResource('docs', 'docs://a', { principal: 'someone-unknown' });
    const forNoOne = await servers.readResource('docs', 'docs://a');
    expect(forAnyone.contents[0]).toMatchObject({ text: 'shared docs' });
    expect(forNoOne.contents[0]).toMatchObject({ text: 'shared docs' });
  });

  it("status of a per-user server is one principal's: its session, or idle before it has one; none named is PRINCIPAL_REQUIRED", async () => {
    const { servers } = await setUp();
    expect(() => servers.status('mine')).toThrow(expect.objectContaining({ code: 'PRINCIPAL_REQUIRED' }));
    expect(servers.status('mine', { principal: 'ada' })).toMatchObject({ server: 'mine', state: 'idle' });
    await servers.listResources('mine', { principal: 'ada' });
    expect(servers.status('mine', { principal: 'ada' })).toMatchObject({
      server: 'mine',
      state: 'connected',
      resourceCount: 1,
      serverInfo: { name: 'per-user' },
    });
    // Bob has no session yet: Ada's is not his.
    expect(servers.status('mine', { principal: 'bob' })).toMatchObject({ state: 'idle' });
    expect(servers.status('mine', { principal: 'bob' })).not.toHaveProperty('serverInfo');
    // A shared server ignores the principal; a principal breaking the id rule is INVALID_OPTION.
    expect(servers.status('docs', { principal: 'ada' })).toMatchObject({ server: 'docs' });
    expect(() => servers.status('mine', { principal: '' })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION' }),
    );
  });

  it('audit records name the principal', async () => {
    const audit = new MemoryAuditSink();
    const { servers } = await setUp({ audit });
    await servers.listResources('mine', { principal: 'ada' });
    await servers.flushAudit();
    expect(audit.records.map((record) => [record.operation, record.principal, record.status])).toEqual([
      ['resources/list', 'ada', 'ok'],
    ]);
  });

  it('sessions are bounded: past `max` principals, the least recently used closes, and reopens on its next call', async () => {
    const { servers, sessions } = await setUp({ principalSessions: { max: 1, idleMs: 60_000 } });
    const closed: string[] = [];
    servers.on('session-closed', (event) => closed.push(`${event.server}:${event.principal ?? '-'}`));
    await servers.listResources('mine', { principal: 'ada' });
    await servers.listResources('mine', { principal: 'bob' });
    await expect.poll(() => closed).toEqual(['mine:ada']);
    const again = await servers.readResource('mine', 'private://notes', { principal: 'ada' });
    expect(again.contents[0]).toMatchObject({ text: 'notes of ada' });
    expect(sessions).toEqual(['mine:ada', 'mine:bob', 'mine:ada']);
  });
});
