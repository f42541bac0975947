/**
 * A hosted app whose users each authorize a per-user OAuth server in their browser. The library
 * never waits for a user: an operation that needs one fails with AUTH_REQUIRED carrying the URL
 * to send them to; when the code reaches the host's redirect URL, the host completes the
 * authorization and repeats the operation itself, a bounded number of times.
 *
 *   npx tsx examples/hosted-authorization.ts
 *
 * It serves the bundled OAuth fixture on 127.0.0.1, and a stand-in for the user's browser signs
 * in and hands back what the redirect URL would receive.
 */

import {
  AccessPolicy,
  ContextError,
  McpServerRegistry,
  MemoryAttachmentStore,
  ResourceContextProvider,
  type Turn,
} from 'mcp-resource-context';
import { MemoryOAuthStore } from 'mcp-resource-context/credentials';
import { startOAuthServer, testUserHeader } from 'mcp-resource-context/fixtures';

const oauth = await startOAuthServer();
const servers = new McpServerRegistry({
  mcpServers: { notes: { type: 'http', url: oauth.url, auth: { type: 'oauth', perUser: true } } },
  // No `authorize`: every authorization goes through AUTH_REQUIRED → completeAuthorization.
  authorizer: { redirectUrl: 'https://host.example/oauth/callback', store: new MemoryOAuthStore() },
});

/**
 * Runs `operation`; on AUTH_REQUIRED sends the user to authorize, completes it, and runs the
 * operation again: at most `maxRounds` authorizations, then the failure is the caller's.
 */
async function withAuthorization<T>(
  principal: string,
  operation: () => Promise<T>,
  maxRounds = 2,
): Promise<T> {
  for (let round = 1; ; round++) {
    try {
      return await operation();
    } catch (error) {
      if (!ContextError.isInstance(error) || error.code !== 'AUTH_REQUIRED' || round > maxRounds) throw error;
      // `value` is the authorization URL (a string); the host shows it and waits for its redirect route.
      const answer = await askUserToAuthorize(principal, new URL(String(error.value)));
      await servers.completeAuthorization(String(error.server), { ...answer, principal });
    }
  }
}

// A registry operation throws AUTH_REQUIRED: the helper authorizes and repeats it.
const read = await withAuthorization('ada', () =>
  servers.readResource('notes', 'private://notes', { principal: 'ada' }),
);
const text = read.contents.map((content) => ('text' in content ? content.text : '')).join('');
console.log(`ada read: ${JSON.stringify(text)}`);

// In a turn nothing throws for one attachment: its trace entry says AUTH_REQUIRED. The host
// authorizes that server for the principal (connecting asks for it) and asks for the turn again.
const policy = new AccessPolicy({ bindings: { notes: { servers: ['notes'] } } });
const attachments = new MemoryAttachmentStore();
const provider = new ResourceContextProvider({ servers, attachments, policy, budget: { maxTokens: 2000 } });
await attachments.pin({ scope: { pipelineId: 'notes' }, server: 'notes', uri: 'private://notes' });
const turn: Turn = { pipelineId: 'notes', conversationId: 'c-1', principal: 'bob' };
try {
  let result = await provider.provide(turn);
  for (let round = 1; round <= 2; round++) {
    const waiting = new Set(
      result.trace.entries
        .filter((entry) => entry.error?.code === 'AUTH_REQUIRED')
        .map((entry) => entry.server),
    );
    if (waiting.size === 0) break;
    console.log(`bob's turn ${round}: ${[...waiting].join(', ')} needs authorization`);
    for (const server of waiting)
      await withAuthorization('bob', () => servers.reconnect(server, { principal: 'bob' }));
    result = await provider.provide(turn);
  }
  for (const entry of result.trace.entries) console.log(`bob's turn: ${entry.uri}  ${entry.status}`);
} finally {
  provider.dispose();
  await servers.close();
  await oauth.close();
}

/** The user's browser: signs in and comes back to the redirect URL with `code`, `state` and maybe `iss`. */
async function askUserToAuthorize(
  user: string,
  url: URL,
): Promise<{ code: string; state?: string; iss?: string }> {
  const response = await fetch(url, { redirect: 'manual', headers: { [testUserHeader]: user } });
  const back = new URL(response.headers.get('location') ?? '');
  const state = back.searchParams.get('state');
  const iss = back.searchParams.get('iss');
  return {
    code: back.searchParams.get('code') ?? '',
    ...(state !== null && { state }),
    ...(iss !== null && { iss }),
  };
}
