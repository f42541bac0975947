import { describe, expect, it } from 'vitest';
import { renderText } from '../../src/render/render-text.js';
import type { ContextBlock, InjectionTrace } from '../../src/types.js';
import { scriptedMemoryConfig } from '../mcp/support/scripted-server.js';
import { sharedTokenizer, startProviderHarness } from '../support/provider-harness.js';

const repos = 'gitnexus://repos';

describe("a turn's trace", () => {
  it('names the turn, its pipeline and conversation, when it started and how long it took, and goes out with the blocks in one injected event', async () => {
    const { provider, attachments } = await startProviderHarness('memory');
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: repos });
    const events: [InjectionTrace, readonly ContextBlock[]][] = [];
    provider.on('injected', (trace, blocks) => events.push([trace, blocks]));

    const before = Date.now();
    const clock = performance.now();
    const named = await provider.provide({ pipelineId: 'support', conversationId: 'c-9', turnId: 't-9' });
    const elapsed = performance.now() - clock;
    expect(named.trace).toMatchObject({ turnId: 't-9', pipelineId: 'support', conversationId: 'c-9' });
    expect(Date.parse(named.trace.startedAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(named.trace.startedAt)).toBeLessThanOrEqual(Date.now());
    // Measured from inside the call: positive, and no more than the call took from outside.
    expect(named.trace.durationMs).toBeGreaterThan(0);
    expect(named.trace.durationMs).toBeLessThanOrEqual(elapsed);

    const anonymous = await provider.provide({ pipelineId: 'support' });
    expect(anonymous.trace.turnId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect('conversationId' in anonymous.trace).toBe(false);

    expect(events).toHaveLength(2);
    expect(events[0]?.[0]).toBe(named.trace);
    expect(events[0]?.[1]).toBe(named.blocks);
    expect(events[1]?.[0]).toBe(anonymous.trace);
  });

  it("the server's instructions are paid for first: the resources get the budget less their tokens", async () => {
    const turn = { pipelineId: 'support', budget: { maxTokens: 900 } };
    const plain = await startProviderHarness('memory', { fixture: { instructions: 'word '.repeat(100) } });
    const instructed = await startProviderHarness('memory', {
      fixture: { instructions: 'word '.repeat(100) },
      provider: { serverInstructions: { maxTokens: 200 } },
    });
    for (const { attachments } of [plain, instructed]) {
      await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: repos });
      await attachments.pin({
        scope: { pipelineId: 'support' },
        server: 'gitnexus',
        uri: 'gitnexus://repo/acme-shop/schema',
      });
    }
    const without = await plain.provider.provide(turn);
    const withInstructions = await instructed.provider.provide(turn);
    const instructionsBlock = withInstructions.blocks.find((block) => block.kind === 'instructions');
    expect(instructionsBlock?.text).toContain('word word');
    const instructionTokens =
      withInstructions.trace.instructions?.reduce((sum, entry) => sum + entry.tokens, 0) ?? 0;
    expect(instructionTokens).toBeGreaterThan(100);
    // The whole context stays within the budget, instructions included.
    expect(withInstructions.trace.budget.usedTokens).toBe(
      await sharedTokenizer.count(renderText(withInstructions.blocks)),
    );
    expect(withInstructions.trace.budget.usedTokens).toBeLessThanOrEqual(900);
    const resourceTokens = (trace: InjectionTrace) =>
      trace.entries.reduce((sum, entry) => sum + entry.tokens, 0);
    expect(resourceTokens(withInstructions.trace)).toBeLessThan(resourceTokens(without.trace));
  });

  it('relevant truncation cuts around what the message asks about', async () => {
    const lines = Array.from({ length: 400 }, (_, index) =>
      index === 300 ? 'the refund window is thirty days' : `line ${index} about shipping and parcels`,
    );
    const notes = scriptedMemoryConfig({
      contents: {
        'notes://policy': [{ uri: 'notes://policy', mimeType: 'text/plain', text: lines.join('\n') }],
      },
    });
    const { provider } = await startProviderHarness('memory', { extraServers: { notes } });
    const turn = (text: string) =>
      provider.provide({
        pipelineId: 'support',
        message: { text, attachments: [{ server: 'notes', uri: 'notes://policy' }] },
        budget: { maxTokens: 400, truncation: 'relevant' },
      });
    const asked = await turn('how long is the refund window?');
    expect(asked.trace.entries[0]?.status).toBe('truncated');
    expect(renderText(asked.blocks)).toContain('the refund window is thirty days');
  });
});
