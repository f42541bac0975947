import type { McpSession } from './mcp-session.js';
import { sessionIdOf } from './session-id-of.js';

/**
 * How a session keeps pinned content fresh: `notifications` when `resources/subscribe` can bring
 * `notifications/resources/updated` (the server offers `resources.subscribe` and its session
 * outlives a request), else `ttl` (entries are re-read when their time is up). A Streamable HTTP
 * server that issued no session id is stateless: it may still announce `resources.subscribe`, but
 * no subscription outlives the request that made it, so none is sent to it. A 2026-07-28 session
 * (stateless by design) subscribes through its one `subscriptions/listen` stream instead
 * (ListenSubscriptions): `notifications` when the server offers `resources.subscribe`.
 */
export function pinUpdatesOf(client: McpSession): 'notifications' | 'ttl' {
  if (client.getServerCapabilities()?.resources?.subscribe !== true) return 'ttl';
  // Only over Streamable HTTP is a session apart from the connection (stdio and SSE: the connection is the session).
  const stateless = !client.modern && client.streamableHttp && sessionIdOf(client) === undefined;
  return stateless ? 'ttl' : 'notifications';
}
