import { describe, expect, it } from 'vitest';
import { startProviderHarness } from '../support/provider-harness.js';

const uris = ['gitnexus://repos', 'gitnexus://setup'];

describe("a turn's change history", () => {
  it("is its conversation's, or its pipeline's without one: a conversation named like the pipeline's history shares nothing", async () => {
    const { attachments, provider } = await startProviderHarness('memory');
    for (const uri of uris)
      await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri });
    const changes = async (turn: { pipelineId: string; conversationId?: string }) =>
      (await provider.provide(turn)).trace.entries.map((entry) => entry.change);

    expect(await changes({ pipelineId: 'support' })).toEqual(['new', 'new']);
    expect(await changes({ pipelineId: 'support' })).toEqual(['unchanged', 'unchanged']);
    // Its own history, though the pipeline's turns without a conversation injected the same versions.
    expect(await changes({ pipelineId: 'support', conversationId: 'pipeline:support' })).toEqual([
      'new',
      'new',
    ]);
    expect(await changes({ pipelineId: 'support', conversationId: 'pipeline:support' })).toEqual([
      'unchanged',
      'unchanged',
    ]);
    expect(await changes({ pipelineId: 'support', conversationId: 'conversation:x' })).toEqual([
      'new',
      'new',
    ]);
    expect(await changes({ pipelineId: 'support', conversationId: 'x' })).toEqual(['new', 'new']);
  });
});
