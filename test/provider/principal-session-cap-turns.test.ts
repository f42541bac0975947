import { describe, expect, it } from 'vitest';
import { startPerUserHarness } from '../support/per-user-harness.js';

const users = (count: number) => Array.from({ length: count }, (_, index) => `user-${index}`);

describe('turns of many users through a capped per-user server (principalSessions.max)', () => {
  it('60 concurrent turns with a cap of 3: no SESSION_CLOSED; each turn has its own content or SESSIONS_EXHAUSTED, and never more than 3 sessions are open', async () => {
    const { provider, servers } = await startPerUserHarness({
      server: { readDelayMs: 40 },
      registry: { principalSessions: { max: 3, idleMs: 60_000, waitMs: 60_000 } },
      provider: { readTimeoutMs: 30_000, turnDeadlineMs: 60_000 },
    });
    let open = 0;
    let mostOpen = 0;
    servers.on('session-opened', () => {
      open++;
      mostOpen = Math.max(mostOpen, open);
    });
    servers.on('session-closed', () => open--);
    const turns = await Promise.all(
      users(60).map(async (principal) => ({
        principal,
        result: await provider.provide({ pipelineId: 'support', principal }),
      })),
    );
    const fates = turns.map(({ principal, result }) => {
      const entry = result.trace.entries[0];
      if (entry?.status === 'injected') {
        return JSON.stringify(result.blocks).includes(`notes of ${principal}`)
          ? 'own content'
          : 'wrong content';
      }
      return entry?.error?.code ?? entry?.status;
    });
    expect(fates.filter((fate) => fate !== 'own content' && fate !== 'SESSIONS_EXHAUSTED')).toEqual([]);
    // Every turn waits long enough (waitMs, within its read timeout) for 20 rounds of 3 sessions.
    expect(fates.filter((fate) => fate === 'own content').length).toBe(60);
    expect(mostOpen).toBeLessThanOrEqual(3);
  }, 90_000);

  it('a turn that waits past principalSessions.waitMs gets SESSIONS_EXHAUSTED in its trace, naming the cap', async () => {
    const { provider } = await startPerUserHarness({
      server: { readDelayMs: 1_000 },
      registry: { principalSessions: { max: 2, waitMs: 50 } },
    });
    const turns = await Promise.all(
      users(6).map((principal) => provider.provide({ pipelineId: 'support', principal })),
    );
    const entries = turns.map((result) => result.trace.entries[0]);
    expect(entries.filter((entry) => entry?.status === 'injected')).toHaveLength(2);
    const exhausted = entries.filter((entry) => entry?.error?.code === 'SESSIONS_EXHAUSTED');
    expect(exhausted).toHaveLength(4);
    expect(exhausted[0]?.error?.message).toContain('principalSessions.max');
    expect(exhausted[0]?.status).toBe('error');
  }, 30_000);
});
