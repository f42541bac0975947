import type { TraceEntry, TraceServer } from '../types.js';

/**
 * The trace's servers section: each server the entries name, in the order it first appears,
 * with the MCP revision its session speaks (`revisionOf`, the registry's); a server whose
 * revision no session has told yet is left out. Undefined when none is known. Asked afresh every
 * turn, a kept one included: a server may have come back on a session of another era.
 */
export function traceServersOf(
  entries: readonly Pick<TraceEntry, 'server'>[],
  revisionOf: (server: string) => string | undefined,
): readonly TraceServer[] | undefined {
  const seen = new Set<string>();
  const servers: TraceServer[] = [];
  for (const { server } of entries) {
    if (seen.has(server)) continue;
    seen.add(server);
    const protocolVersion = revisionOf(server);
    if (protocolVersion !== undefined) servers.push(Object.freeze({ server, protocolVersion }));
  }
  return servers.length === 0 ? undefined : Object.freeze(servers);
}
