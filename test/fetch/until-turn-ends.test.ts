import { describe, expect, it } from 'vitest';
import type { ResolvedAttachment } from '../../src/attachments/resolve-turn-attachments.js';
import { ContextError } from '../../src/errors.js';
import { fetchAttachments, type TurnFetch } from '../../src/fetch/fetch-attachments.js';
import type { TurnAttachment } from '../../src/fetch/turn-attachment.js';
import { settledAll, untilTurnEnds } from '../../src/fetch/until-turn-ends.js';
import type { Authorized } from '../../src/policy/authorize-attachments.js';
import { TurnDeadline } from '../../src/provider/turn-deadline.js';
import { TurnSpans } from '../../src/trace/turn-spans.js';

const attachment = (uri: string): ResolvedAttachment => ({
  scope: 'pipeline',
  server: 'docs',
  uri,
  priority: 0,
  superseded: [],
});
const resolved = [attachment('doc://a'), attachment('doc://b')];
const authorizedOf = (target: ResolvedAttachment): Authorized<ResolvedAttachment> => ({
  attachment: target,
  access: { allowed: true, limits: { mimeTypes: [] } },
});
const itemOf = (target: ResolvedAttachment): TurnAttachment => ({
  attachment: target,
  access: { allowed: true, limits: { mimeTypes: [] } },
  fate: { kind: 'skipped', status: 'omitted', reason: 'test', cache: 'bypass', durationMs: 0 },
  composed: undefined,
});

const denial = {
  kind: 'failed',
  status: 'denied',
  error: new ContextError('POLICY_DENIED', 'not bound', { server: 'docs' }),
  cache: 'bypass',
  durationMs: 0,
} as const;

describe('untilTurnEnds', () => {
  it('answers items answered at once as they are, without asking for the turn’s signal', async () => {
    const items = resolved.map(itemOf);
    expect(settledAll(items)).toBe(items);
    // The fetch step of attachments decided before any read: nothing waits, nothing asks for the signal.
    const fetching = {
      until: {
        get signal(): AbortSignal {
          throw new Error('a turn that waits on nothing asked for its signal');
        },
      },
    } as unknown as TurnFetch;
    const denied = resolved.map(
      (target): Authorized<ResolvedAttachment> => ({
        attachment: target,
        access: { allowed: false, fate: denial },
      }),
    );
    const fetched = await fetchAttachments(denied, fetching, TurnSpans.unrecorded);
    expect(fetched.map((one) => one.attachment)).toEqual(resolved);
  });

  it('waits for pending items and keeps them in the attachments’ order', async () => {
    const [first, second] = resolved.map(itemOf) as [TurnAttachment, TurnAttachment];
    const deadline = new TurnDeadline(60_000, undefined);
    try {
      const late = new Promise<TurnAttachment>((resolve) => setTimeout(() => resolve(first), 20));
      const pending = untilTurnEnds(late, authorizedOf(resolved[0] as ResolvedAttachment), deadline, 60_000);
      expect(await settledAll([pending, second])).toEqual([first, second]);
    } finally {
      deadline.end();
    }
  });

  it('what is still pending when the turn ends is a TURN_DEADLINE timeout naming its server; what is ready stays', async () => {
    const ready = itemOf(resolved[1] as ResolvedAttachment);
    const deadline = new TurnDeadline(30, undefined);
    try {
      const never = untilTurnEnds(
        new Promise<TurnAttachment>(() => {}),
        authorizedOf(resolved[0] as ResolvedAttachment),
        deadline,
        30,
      );
      const items = await settledAll([never, ready]);
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
      const broken = untilTurnEnds(
        Promise.reject(new Error('not a deadline')),
        authorizedOf(resolved[0] as ResolvedAttachment),
        deadline,
        60_000,
      );
      await expect(settledAll([broken, itemOf(resolved[1] as ResolvedAttachment)])).rejects.toThrow(
        'not a deadline',
      );
    } finally {
      deadline.end();
    }
  });
});
