import { describe, expect, it } from 'vitest';
import { traceServersOf } from '../../src/trace/trace-servers.js';

const entries = (...servers: string[]) => Object.freeze(servers.map((server) => ({ server })));

describe("the trace's servers section (traceServersOf)", () => {
  it('names each server once, in the order the entries first name it, leaving out one of unknown revision', () => {
    const revisions: Record<string, string> = { b: '2026-07-28', a: '2025-11-25' };

    expect(traceServersOf(entries('b', 'gone', 'a', 'b', 'a'), (server) => revisions[server])).toEqual([
      { server: 'b', protocolVersion: '2026-07-28' },
      { server: 'a', protocolVersion: '2025-11-25' },
    ]);
    expect(traceServersOf(entries('gone'), () => undefined)).toBeUndefined();
    expect(traceServersOf(entries(), () => '2025-11-25')).toBeUndefined();
  });

  it('the same entries (a kept turn) answer the same frozen section while every revision holds, and a new one when a server changes era', () => {
    const answered = entries('a', 'b', 'a');
    const revisions: Record<string, string | undefined> = { a: '2025-11-25', b: '2025-11-25' };
    const revisionOf = (server: string) => revisions[server];

    const first = traceServersOf(answered, revisionOf);
    const again = traceServersOf(answered, revisionOf);
    revisions.b = '2026-07-28';
    const changed = traceServersOf(answered, revisionOf);
    revisions.a = undefined;
    const lost = traceServersOf(answered, revisionOf);

    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first?.[0])).toBe(true);
    expect(changed).toEqual([
      { server: 'a', protocolVersion: '2025-11-25' },
      { server: 'b', protocolVersion: '2026-07-28' },
    ]);
    expect(lost).toEqual([{ server: 'b', protocolVersion: '2026-07-28' }]);
  });
});
