import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** The session id a Streamable HTTP server issued, if any (stateless servers issue none). */
export function sessionIdOf(client: Client): string | undefined {
  return (client.transport as { sessionId?: string } | undefined)?.sessionId;
}
