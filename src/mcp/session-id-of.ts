import type { McpSession } from './mcp-session.js';

/** The session id a Streamable HTTP server issued, if any (stateless servers issue none). */
export function sessionIdOf(client: McpSession): string | undefined {
  return (client.transport as { sessionId?: string } | undefined)?.sessionId;
}
