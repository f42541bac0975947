import { describe, expect, it } from 'vitest';
import type { ResolvedAttachment } from '../../src/attachments/resolve-turn-attachments.js';
import { TurnDeadline } from '../../src/provider/turn-deadline.js';
import type { TurnItem } from '../../src/provider/turn-item.js';
import { untilTurnEnds } from '../../src/provider/until-turn-ends.js';

const attachment = (uri: string): ResolvedAttachment => ({
  scope: 'pipeline',
  server: 'docs',
  uri,
  priority: 0,
  superseded: [],
});
const resolved = [attachment('doc://a'), attachment('doc://b')];
const itemOf = (target: ResolvedAttachment): TurnItem => ({
  attachment: target,
  fate: { kind: 'skipped', status: 'omitted', reason: 'test', cache: 'bypass', durationMs: 0 },
});

describe('untilTurnEnds', () => {
  it('answers items answered at once as they are, without asking for the turn’s signal', async () => {
    const items = resolved.map(itemOf);
    const until = {
      get signal(): AbortSignal {
        throw new Error('a turn that waits on nothing asked for its signal');
      },
    };
    expect(await untilTurnEnds(items, resolved, until, 1000)).toBe(items);
  });

  it('waits for pending items and keeps them in the attachments’ order', async () => {
    const [first, second] = resolved.map(itemOf) as [TurnItem, TurnItem];
    const deadline = new TurnDeadline(60_000, undefined);
    try {
      const late = new Promise<TurnItem>((resolve) => setTimeout(() => resolve(first), 20));
      expect(await untilTurnEnds([late, second], resolved, deadline, 60_000)).toEqual([first, second]);
    } finally {
      deadline.end();
    }
  });

  it('what is still pending when the turn ends is a TURN_DEADLINE timeout naming its server; what is ready stays', async () => {
    const ready = itemOf(resolved[1] as ResolvedAttachment);
    const deadline = new TurnDeadline(30, undefined);
    try {
      const items = await untilTurnEnds([new Promise<TurnItem>(() => {}), ready], resolved, deadline, 30);
      expect(items[1]).toBe(ready);
      expect(items[0]?.attachment).toBe(resolved[0]);
      expect(items[0]?.fate).toMatchObject({
        kind: 'failed',
        status: 'timeout',
        cache: 'miss',
        error: {
          code: 'TURN_DEADLINE',
          message: 'doc://a was not ready by the turn deadline (30 ms)',
          server: 'docs',
        },
      });
      expect(items[0]?.fate.durationMs).toBeGreaterThanOrEqual(20);
    } finally {
      deadline.end();
    }
  });

  it('a failure that is not the turn ending is not swallowed', async () => {
    const deadline = new TurnDeadline(60_000, undefined);
    try {
      const broken = Promise.reject(new Error('not a deadline'));
      await expect(
        untilTurnEnds([broken, itemOf(resolved[1] as ResolvedAttachment)], resolved, deadline, 60_000),
      ).rejects.toThrow('not a deadline');
    } finally {
      deadline.end();
    }
  });
});
