import { afterEach, describe, expect, it, vi } from 'vitest';
import { startPerUserHarness } from '../support/per-user-harness.js';

/**
 * A per-user server `mine` pinned for the `support` pipeline (whose bound views are counted),
 * and ada's turns in conversation `c-shared` (or none) until her turn is kept. Pipeline `other` is bound to
 * `gitnexus` without listing it (its turns move no listing's generation: only the history tells
 * ada's kept turn from what it was) and pins nothing until a test pins something for it.
 */
async function keptForAda({ inConversation = true } = {}) {
  const conversationId = inConversation ? 'c-shared' : undefined;
  const harness = await startPerUserHarness({
    policy: {
      bindings: {
        support: { servers: ['gitnexus', 'mine'] },
        other: { servers: ['gitnexus'], operations: ['read', 'subscribe'] },
      },
    },
    provider: { keptTurns: { maxTurns: 20_000 } },
  });
  // A turn that runs its steps binds the policy's view for step 2; a kept answer asks the policy alone.
  const bind = vi.spyOn(harness.policy, 'bind');
  /** One turn of `principal` in the shared conversation (or none), and whether it ran its steps. */
  const ran = async (principal: string) => {
    bind.mockClear();
    const result = await harness.provider.provide({
      pipelineId: 'support',
      ...(conversationId !== undefined && { conversationId }),
      principal,
    });
    return { result, ran: bind.mock.calls.length > 0, text: JSON.stringify(result.blocks) };
  };
  for (let index = 0; index < 3; index++) await ran('ada');
  await harness.provider.listingsSettled();
  for (let index = 0; index < 2; index++) await ran('ada');
  // From here the clock stands still: no kept turn gives way to a full one for its age.
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  const kept = await ran('ada');
  expect(kept.ran).toBe(false);
  expect(kept.result.trace.entries[0]).toMatchObject({ cache: 'hit', change: 'unchanged' });
  return { ...harness, ran };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a kept turn of a principal sharing its conversation', () => {
  it("is not answered after another principal's turn recorded a different version of the same resource", async () => {
    const { ran } = await keptForAda();

    // Bob's notes are not ada's: his turn records another sha256 for the URI in the conversation.
    const bob = await ran('bob');
    expect(bob.text).toContain('notes of bob');
    expect(bob.result.trace.entries[0]).toMatchObject({ change: 'changed' });

    // Ada's copy is still cached and fresh, and no listing moved: only the history tells.
    const after = await ran('ada');
    expect(after.ran).toBe(true);
    expect(after.text).toContain('notes of ada');
    expect(after.result.trace.entries[0]).toMatchObject({ cache: 'hit', change: 'changed' });
  });

  it('is not answered after its history was forgotten and a new one recorded as many changes', async () => {
    const { provider, attachments, ran } = await keptForAda();
    // 10,000 other conversations that inject something (the change tracker's bound): c-shared's
    // history, one change, goes.
    await attachments.pin({ scope: { pipelineId: 'other' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    for (let index = 0; index < 10_000; index++) {
      await provider.provide({ pipelineId: 'other', conversationId: `c-other-${index}` });
    }
    // Bob's turn starts c-shared's history anew, with one change too: his notes, new to it.
    const bob = await ran('bob');
    expect(bob.result.trace.entries[0]).toMatchObject({ change: 'new' });

    const after = await ran('ada');
    expect(after.ran).toBe(true);
    expect(after.text).toContain('notes of ada');
    expect(after.result.trace.entries[0]).toMatchObject({ cache: 'hit', change: 'changed' });
  });

  it('is still answered after 10,000 turns of other conversations that injected nothing', async () => {
    const { provider, ran } = await keptForAda();
    // Turns of nothing make no history: none of them pushes c-shared's out of the tracker.
    for (let index = 0; index < 10_000; index++) {
      await provider.provide({ pipelineId: 'other', conversationId: `c-empty-${index}` });
    }
    const after = await ran('ada');
    expect(after.ran).toBe(false);
    expect(after.result.trace.entries[0]).toMatchObject({ cache: 'hit', change: 'unchanged' });
  });

  it("without a conversation: the pipeline's history is the one shared", async () => {
    const { ran } = await keptForAda({ inConversation: false });
    const bob = await ran('bob');
    expect(bob.result.trace.entries[0]).toMatchObject({ change: 'changed' });

    const after = await ran('ada');
    expect(after.ran).toBe(true);
    expect(after.result.trace.entries[0]).toMatchObject({ cache: 'hit', change: 'changed' });
  });
});
