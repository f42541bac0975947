import type { TraceEntry, TraceServer } from '../types.js';

/** What the trace says of a server's session: its revision and how its pins are kept fresh. */
export type TracedSession = Omit<TraceServer, 'server'>;

/**
 * The trace's servers section: each server the entries name, in the order it first appears,
 * with the MCP revision its session speaks and how its pins are kept fresh (`sessionOf`, the
 * registry's); a server no session has told of yet is left out. Undefined when none is known.
 * Asked afresh every turn, a kept one included: a server may have come back on a session of
 * another era. Built plainly each time (a turn names a few servers; about 2 µs).
 */
export function traceServersOf(
  entries: readonly Pick<TraceEntry, 'server'>[],
  sessionOf: (server: string) => TracedSession | undefined,
): readonly TraceServer[] | undefined {
  const servers: TraceServer[] = [];
  for (const server of serverNamesOf(entries)) {
    const session = sessionOf(server);
    if (session !== undefined) servers.push(Object.freeze({ server, ...session }));
  }
  return servers.length === 0 ? undefined : Object.freeze(servers);
}

// --- Internal helpers ---

/** Entries come in runs of one server (a turn names a few): only a change of name is looked up. */
function serverNamesOf(entries: readonly Pick<TraceEntry, 'server'>[]): string[] {
  const names: string[] = [];
  let previous: string | undefined;
  for (const { server } of entries) {
    if (server === previous) continue;
    previous = server;
    if (!names.includes(server)) names.push(server);
  }
  return names;
}
