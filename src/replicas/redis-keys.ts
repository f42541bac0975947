import type { SharedKey } from '../cache/shared-tier.js';

/**
 * Redis key names under one prefix. Parts are JSON-encoded, so no server name, URI or
 * principal can collide with another by containing a separator. Copies and leases are
 * partitioned by server and principal; generations are per server and per (server, uri).
 */
export function redisKeys(prefix: string) {
  const part = (...values: string[]) => JSON.stringify(values);
  return {
    entry: (key: SharedKey) => `${prefix}content:${part(key.server, key.principal ?? '', key.uri)}`,
    lease: (key: SharedKey) => `${prefix}lease:${part(key.server, key.principal ?? '', key.uri)}`,
    serverGeneration: (server: string) => `${prefix}generation:${part(server)}`,
    uriGeneration: (server: string, uri: string) => `${prefix}generation:${part(server, uri)}`,
    channel: `${prefix}invalidations`,
  };
}
