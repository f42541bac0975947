import { describe, expect, it } from 'vitest';
import { traceServersOf } from '../../src/trace/trace-servers.js';

const entries = (...servers: string[]) => Object.freeze(servers.map((server) => ({ server })));
/** A lookup answering each server's revision alone (no pinUpdates). */
const byRevision = (revisions: Record<string, string | undefined>) => (server: string) => {
  const protocolVersion = revisions[server];
  return protocolVersion === undefined ? undefined : { protocolVersion };
};

describe("the trace's servers section (traceServersOf)", () => {
  it('names each server once, in the order the entries first name it, leaving out one of unknown revision', () => {
    const revisions: Record<string, string> = { b: '2026-07-28', a: '2025-11-25' };

    expect(traceServersOf(entries('b', 'gone', 'a', 'b', 'a'), byRevision(revisions))).toEqual([
      { server: 'b', protocolVersion: '2026-07-28' },
      { server: 'a', protocolVersion: '2025-11-25' },
    ]);
    expect(traceServersOf(entries('gone'), () => undefined)).toBeUndefined();
    expect(traceServersOf(entries(), () => ({ protocolVersion: '2025-11-25' }))).toBeUndefined();
  });

  it('the same entries (a kept turn) answer an equal frozen section while every revision holds, and a new one when a server changes era', () => {
    const answered = entries('a', 'b', 'a');
    const revisions: Record<string, string | undefined> = { a: '2025-11-25', b: '2025-11-25' };
    const revisionOf = byRevision(revisions);

    const first = traceServersOf(answered, revisionOf);
    const again = traceServersOf(answered, revisionOf);
    revisions.b = '2026-07-28';
    const changed = traceServersOf(answered, revisionOf);
    revisions.a = undefined;
    const lost = traceServersOf(answered, revisionOf);

    expect(again).toEqual(first);
    expect(Object.isFrozen(again)).toBe(true);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first?.[0])).toBe(true);
    expect(changed).toEqual([
      { server: 'a', protocolVersion: '2025-11-25' },
      { server: 'b', protocolVersion: '2026-07-28' },
    ]);
    expect(lost).toEqual([{ server: 'b', protocolVersion: '2026-07-28' }]);
  });

  it('says how each server keeps pins fresh, and a change of it is a new section', () => {
    const answered = entries('a', 'b');
    const updates: Record<string, 'notifications' | 'ttl'> = { a: 'notifications', b: 'ttl' };
    const sessionOf = (server: string) => ({ protocolVersion: '2025-11-25', pinUpdates: updates[server] });
    const first = traceServersOf(answered, sessionOf);
    expect(first).toEqual([
      { server: 'a', protocolVersion: '2025-11-25', pinUpdates: 'notifications' },
      { server: 'b', protocolVersion: '2025-11-25', pinUpdates: 'ttl' },
    ]);
    const again = traceServersOf(answered, sessionOf);
    expect(again).toEqual(first);
    expect(Object.isFrozen(again)).toBe(true);
    updates.a = 'ttl';
    expect(traceServersOf(answered, sessionOf)?.[0]).toEqual({
      server: 'a',
      protocolVersion: '2025-11-25',
      pinUpdates: 'ttl',
    });
  });
});
