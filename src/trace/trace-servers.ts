import type { TraceEntry, TraceServer } from '../types.js';

/** What the trace says of a server's session: its revision and how its pins are kept fresh. */
export type TracedSession = Omit<TraceServer, 'server'>;

/**
 * The trace's servers section: each server the entries name, in the order it first appears,
 * with the MCP revision its session speaks and how its pins are kept fresh (`sessionOf`, the
 * registry's); a server no session has told of yet is left out. Undefined when none is known. Asked afresh every
 * turn, a kept one included: a server may have come back on a session of another era.
 */
export function traceServersOf(
  entries: readonly Pick<TraceEntry, 'server'>[],
  sessionOf: (server: string) => TracedSession | undefined,
): readonly TraceServer[] | undefined {
  // A kept turn answers the very entries of the turn it repeats: their servers are not looked for
  // again (a walk of 100 entries is about 0.3 µs, a fiftieth of a kept turn).
  const names = entries === last.entries ? last.names : serverNamesOf(entries);
  const sessions = names.map(sessionOf);
  const revisions = sessions.map(keyOf);
  // Turn after turn the same servers at the same revisions: the last section (frozen) is answered
  // again rather than made anew (a new one each turn cost a full warm turn about 3 µs).
  if (sameStrings(last.names, names) && sameStrings(last.revisions, revisions)) {
    if (entries !== last.entries) last = { ...last, entries };
    return last.servers;
  }
  const servers: TraceServer[] = [];
  for (const [index, server] of names.entries()) {
    const session = sessions[index];
    if (session !== undefined) servers.push(Object.freeze({ server, ...session }));
  }
  last = { entries, names, revisions, servers: servers.length === 0 ? undefined : Object.freeze(servers) };
  return last.servers;
}

// --- Internal helpers ---

function keyOf(session: TracedSession | undefined): string | undefined {
  return session && `${session.protocolVersion}\u0000${session.pinUpdates ?? ''}`;
}

/** The last section answered, the entries it was for, and the servers and sessions (as keys) it was made of. */
let last: {
  readonly entries: readonly Pick<TraceEntry, 'server'>[];
  readonly names: readonly string[];
  readonly revisions: readonly (string | undefined)[];
  readonly servers: readonly TraceServer[] | undefined;
} = { entries: [], names: [], revisions: [], servers: undefined };

/** Entries come in runs of one server (a turn names a few): only a change of name is looked up. */
function serverNamesOf(entries: readonly Pick<TraceEntry, 'server'>[]): string[] {
  const names: string[] = [];
  let previous: string | undefined;
  for (let index = 0; index < entries.length; index++) {
    const server = (entries[index] as Pick<TraceEntry, 'server'>).server;
    if (server === previous) continue;
    previous = server;
    if (!names.includes(server)) names.push(server);
  }
  return names;
}

function sameStrings(one: readonly (string | undefined)[], other: readonly (string | undefined)[]): boolean {
  if (one.length !== other.length) return false;
  for (let index = 0; index < one.length; index++) if (one[index] !== other[index]) return false;
  return true;
}
