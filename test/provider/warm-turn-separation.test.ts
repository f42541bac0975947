import { describe, expect, it } from 'vitest';
import { startProviderHarness } from '../support/provider-harness.js';

// A stored pin resolves to the same frozen object every turn, and a cache hit is served as the same
// fate object, which pins of the same target share (prepareAttachment keeps one preparation per
// way of framing it): the turn item kept for a fate must still be this turn's pin's.
describe("what a warm turn reuses stays with this turn's pin", () => {
  it("two conversations pinning the same resource share its cached fate, and each turn's trace names its own pin", async () => {
    const { attachments, provider } = await startProviderHarness('memory', {
      provider: { serverInstructions: false },
    });
    const pinIn = (conversationId: string) =>
      attachments.pin({ scope: { conversationId }, server: 'gitnexus', uri: 'gitnexus://repos' });
    const first = await pinIn('c-first');
    const second = await pinIn('c-second');
    const turnIn = (conversationId: string) => provider.provide({ pipelineId: 'support', conversationId });
    const pinsOf = (result: Awaited<ReturnType<typeof turnIn>>) =>
      result.trace.entries.map((entry) => [entry.attachmentId, entry.cache]);

    const cold = await turnIn('c-first');
    const warm = await turnIn('c-first');
    const other = await turnIn('c-second');
    const back = await turnIn('c-first');

    expect(pinsOf(cold)).toEqual([[first.id, 'miss']]);
    expect(pinsOf(warm)).toEqual([[first.id, 'hit']]);
    // The same content, a cache hit: only the pin it is traced as differs.
    expect(pinsOf(other)).toEqual([[second.id, 'hit']]);
    expect(other.blocks).toEqual(warm.blocks);
    expect(pinsOf(back)).toEqual([[first.id, 'hit']]);
  });
});
