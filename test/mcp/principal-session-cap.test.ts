import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, onTestFinished } from 'vitest';
import { type OAuthServerOptions, startOAuthServer } from '../../fixtures/index.js';
import { MemoryOAuthStore } from '../../src/credentials/memory-oauth-store.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import { signInAsPrincipal } from '../support/per-user-harness.js';

interface ReadOutcome {
  readonly principal: string;
  readonly text?: string | undefined;
  readonly code?: string | undefined;
  readonly field?: string | undefined;
  readonly limit?: number | undefined;
}

/** A per-user OAuth server `mine` on 127.0.0.1 and a registry; open sessions counted from its events. */
async function setUp(
  registry: Partial<McpServerRegistryOptions> = {},
  serverOptions: OAuthServerOptions = {},
) {
  const server = await startOAuthServer(serverOptions);
  const servers = new McpServerRegistry({
    mcpServers: { mine: { type: 'http', url: server.url, auth: { type: 'oauth', perUser: true } } },
    reconnect: false,
    authorizer: {
      redirectUrl: 'http://127.0.0.1:1/callback',
      store: new MemoryOAuthStore(),
      authorize: signInAsPrincipal,
    },
    ...registry,
  });
  const sessions = { open: 0, mostOpen: 0, opened: 0, closed: [] as string[] };
  servers.on('session-opened', () => {
    sessions.opened++;
    sessions.open++;
    sessions.mostOpen = Math.max(sessions.mostOpen, sessions.open);
  });
  servers.on('session-closed', (event) => {
    sessions.open--;
    sessions.closed.push(event.principal ?? '-');
  });
  onTestFinished(async () => {
    await servers.close();
    await server.close();
  });
  /** A read's outcome as data: the text it got, or the code it failed with. */
  const read = (principal: string): Promise<ReadOutcome> =>
    servers.readResource('mine', 'private://notes', { principal }).then(
      (result) => ({ principal, text: (result.contents[0] as { text?: string } | undefined)?.text }),
      (error: { code?: string; field?: string; limit?: number }) => ({
        principal,
        code: error.code,
        field: error.field,
        limit: error.limit,
      }),
    );
  return { server, servers, sessions, read };
}

const users = (count: number, from = 0) =>
  Array.from({ length: count }, (_, index) => `user-${from + index}`);

describe('principalSessions.max: only idle sessions are evicted', () => {
  it('with the default cap, the 101st concurrent user waits for a session: the first 100 users’ running reads all complete', async () => {
    const { server, read, sessions } = await setUp();
    const release = server.holdReads();
    const first = users(100).map(read);
    await expect.poll(() => server.heldReads, { timeout: 30_000, interval: 20 }).toBe(100);
    const late = read('user-100');
    // Long enough for the 101st user's read to have closed someone else's session on the old code.
    await sleep(300);
    release();
    const outcomes = await Promise.all(first);
    expect(outcomes.filter((outcome) => outcome.text !== `notes of ${outcome.principal}`)).toEqual([]);
    expect(await late).toEqual({ principal: 'user-100', text: 'notes of user-100' });
    // One idle session made room for the 101st, and was closed before it opened.
    expect(sessions.mostOpen).toBe(100);
    expect(sessions.closed).toHaveLength(1);
    expect(sessions.opened).toBe(101);
  }, 60_000);

  it('a session is never closed for idleness while its read runs', async () => {
    const { read, sessions } = await setUp(
      { principalSessions: { idleMs: 50, max: 10 } },
      { readDelayMs: 400 },
    );
    expect(await read('ada')).toEqual({ principal: 'ada', text: 'notes of ada' });
    // Unused afterwards, it closes once idleMs has passed.
    await expect.poll(() => sessions.closed).toEqual(['ada']);
  });

  it('when every session stays busy past waitMs, the request that needs a new one fails SESSIONS_EXHAUSTED naming the cap; no running read fails', async () => {
    const { server, read, sessions } = await setUp({ principalSessions: { max: 3, waitMs: 100 } });
    const release = server.holdReads();
    const busy = users(3).map(read);
    await expect.poll(() => server.heldReads, { timeout: 15_000, interval: 20 }).toBe(3);
    const refused = await Promise.all(users(5, 3).map(read));
    expect(refused).toEqual(
      users(5, 3).map((principal) => ({
        principal,
        code: 'SESSIONS_EXHAUSTED',
        field: 'principalSessions.max',
        limit: 3,
      })),
    );
    release();
    expect((await Promise.all(busy)).map((outcome) => outcome.text)).toEqual(
      users(3).map((principal) => `notes of ${principal}`),
    );
    expect(sessions.mostOpen).toBe(3);
    expect(sessions.closed).toEqual([]);
  }, 30_000);

  it('evicted sessions are closed: many users through a cap of 3 never hold more than 3 open, and each one evicted saw its session closed', async () => {
    const { read, sessions } = await setUp({ principalSessions: { max: 3 } }, { readDelayMs: 30 });
    const outcomes = await Promise.all(users(24).map(read));
    expect(outcomes.filter((outcome) => outcome.text !== `notes of ${outcome.principal}`)).toEqual([]);
    expect(sessions.mostOpen).toBeLessThanOrEqual(3);
    expect(sessions.opened).toBe(24);
    expect(sessions.closed).toHaveLength(21);
    expect(sessions.open).toBe(3);
  }, 60_000);

  it('a principal that already has a session is served on it at once, even while others wait for one', async () => {
    const { server, read } = await setUp({ principalSessions: { max: 1, waitMs: 5_000 } });
    expect(await read('ada')).toMatchObject({ text: 'notes of ada' });
    const release = server.holdReads();
    const adaBusy = read('ada');
    await expect.poll(() => server.heldReads).toBe(1);
    const bob = read('bob');
    const adaAgain = read('ada');
    await expect.poll(() => server.heldReads).toBe(2);
    release();
    expect(await adaBusy).toMatchObject({ text: 'notes of ada' });
    expect(await adaAgain).toMatchObject({ text: 'notes of ada' });
    expect(await bob).toMatchObject({ text: 'notes of bob' });
  }, 30_000);
});
