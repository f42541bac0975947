import { onTestFinished } from 'vitest';
import type { OAuthServer } from '../../fixtures/hosted/start-oauth-server.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';

/**
 * A registry whose one server `notes` is the OAuth fixture's MCP endpoint, authenticated with
 * client credentials bound to the fixture's issuer (the fixture issues them as the user
 * `service`). Closed when the test ends.
 */
export function clientCredentialsRegistry(server: OAuthServer): McpServerRegistry {
  const auth = {
    type: 'oauth-client-credentials',
    issuer: server.origin,
    clientId: 'svc',
    clientSecret: 's3cret',
  } as const;
  const servers = new McpServerRegistry({
    mcpServers: { notes: { type: 'http', url: server.url, auth } },
    reconnect: false,
  });
  onTestFinished(() => servers.close());
  return servers;
}
