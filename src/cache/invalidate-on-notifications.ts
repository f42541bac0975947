import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import type { ContentCache } from './content-cache.js';

/**
 * Wires a registry's notifications to a cache (MCP spec, server/resources): `updated` drops
 * that URI, `list_changed` drops everything of that server, a closed session marks that
 * server's copies stale (its notifications may have been missed while it was down).
 * Duplicates are harmless: dropping what is gone is a no-op. Each names the server by this
 * registry's identity of it, so a cache shared with another registry keeps that registry's
 * server of the same name (a different one) as it was. Returns the unwiring function.
 */
export function invalidateOnNotifications(servers: McpServerRegistry, cache: ContentCache): () => void {
  const onUpdated = (event: { server: string; uri: string }) =>
    cache.invalidateResource(event.server, event.uri, identityNow(servers, event.server));
  const onListChanged = (event: { server: string }) =>
    cache.invalidateServer(event.server, identityNow(servers, event.server));
  const onClosed = (event: { server: string }) =>
    cache.markServerStale(event.server, identityNow(servers, event.server));
  servers.on('resource-updated', onUpdated);
  servers.on('resources-list-changed', onListChanged);
  servers.on('session-closed', onClosed);
  return () => {
    servers.off('resource-updated', onUpdated);
    servers.off('resources-list-changed', onListChanged);
    servers.off('session-closed', onClosed);
  };
}

// --- Internal helpers ---

/**
 * The identity when known now; while it is still being resolved no read has been keyed by it
 * yet, and the name reaches every copy of that name (more than needed, never less).
 */
function identityNow(servers: McpServerRegistry, server: string): string | undefined {
  const identity = servers.identityOf(server);
  if (typeof identity === 'string') return identity;
  identity.catch(() => undefined);
  return undefined;
}
