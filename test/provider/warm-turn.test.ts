import { describe, expect, it } from 'vitest';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
import { contextPreamble } from '../../src/render/frame-resource.js';
import { renderText } from '../../src/render/render-text.js';
import type { InjectionTrace } from '../../src/types.js';
import { sharedTokenizer, startProviderHarness } from '../support/provider-harness.js';

/** The shared tokenizer, noting every call and the length of every counted text. */
function recordingTokenizer() {
  const calls = { encode: 0, decode: 0, encodeWithin: 0, counted: [] as number[] };
  const tokenizer: Tokenizer = {
    name: sharedTokenizer.name,
    piecewise: true,
    encode: (text) => {
      calls.encode++;
      return sharedTokenizer.encode(text);
    },
    decode: (tokens) => {
      calls.decode++;
      return sharedTokenizer.decode(tokens);
    },
    count: (text) => {
      calls.counted.push(text.length);
      return sharedTokenizer.count(text);
    },
    encodeWithin: (text, limit, from) => {
      calls.encodeWithin++;
      return sharedTokenizer.encodeWithin?.(text, limit, from) as ReturnType<
        NonNullable<Tokenizer['encodeWithin']>
      >;
    },
    dispose: () => {},
  };
  const reset = () => {
    calls.encode = 0;
    calls.decode = 0;
    calls.encodeWithin = 0;
    calls.counted = [];
  };
  return { tokenizer, calls, reset };
}

/** What must be equal between two turns over unchanged content. */
const facts = (trace: InjectionTrace) =>
  trace.entries.map(({ durationMs: _duration, cache: _cache, change: _change, ...entry }) => entry);

describe('a warm turn', () => {
  it('reuses each unchanged rendering and its exact count: no encode, no decode, no count of content', async () => {
    const recording = recordingTokenizer();
    const { attachments, provider } = await startProviderHarness('memory', {
      provider: { tokenizer: recording.tokenizer, budget: { maxTokens: 1200 }, serverInstructions: false },
    });
    for (const uri of ['gitnexus://repos', 'gitnexus://setup', 'gitnexus://repo/acme-shop/context']) {
      await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri });
    }
    const turn = { pipelineId: 'support', conversationId: 'c-warm' };
    const cold = await provider.provide(turn);
    expect(cold.trace.entries.some((entry) => entry.status === 'truncated')).toBe(true);

    recording.reset();
    const warm = await provider.provide(turn);

    expect(warm.blocks).toEqual(cold.blocks);
    expect(facts(warm.trace)).toEqual(facts(cold.trace));
    expect(warm.trace.entries.map((entry) => [entry.cache, entry.change])).toEqual(
      cold.trace.entries.map(() => ['hit', 'unchanged']),
    );
    expect(warm.trace.budget.usedTokens).toBe(await sharedTokenizer.count(renderText(warm.blocks)));
    expect([recording.calls.encode, recording.calls.decode, recording.calls.encodeWithin]).toEqual([0, 0, 0]);
    // The whole composition is reused: nothing is counted, not even the preamble.
    expect(recording.calls.counted).toEqual([]);
  });

  it('traces an unchanged attachment as the last warm turn did: an equal frozen entry, durationMs 0', async () => {
    const { attachments, provider } = await startProviderHarness('memory', {
      provider: { budget: { maxTokens: 1200 }, serverInstructions: false },
    });
    for (const uri of ['gitnexus://repos', 'gitnexus://setup']) {
      await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri });
    }
    const turn = { pipelineId: 'support', conversationId: 'c-kept' };
    const cold = await provider.provide(turn);
    const warm = await provider.provide(turn);
    const again = await provider.provide(turn);
    expect(cold.trace.entries.map((entry) => entry.cache)).toEqual(['miss', 'miss']);
    expect(warm.trace.entries.map((entry) => [entry.cache, entry.change, entry.durationMs])).toEqual([
      ['hit', 'unchanged', 0],
      ['hit', 'unchanged', 0],
    ]);
    warm.trace.entries.forEach((entry, index) => {
      expect(again.trace.entries[index]).toEqual(entry);
      expect(Object.isFrozen(again.trace.entries[index])).toBe(true);
    });
    expect(again.trace.turnId).not.toBe(warm.trace.turnId);

    // A pin added: the others keep their entries, the new one gets its own.
    await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      uri: 'gitnexus://repo/acme-shop/context',
    });
    const grown = await provider.provide(turn);
    expect(grown.trace.entries.map((entry) => [entry.uri, entry.cache])).toEqual([
      ['gitnexus://repos', 'hit'],
      ['gitnexus://setup', 'hit'],
      ['gitnexus://repo/acme-shop/context', 'miss'],
    ]);
  });

  it("composes again, counting only frames and the preamble, when a pin's cap changes", async () => {
    const recording = recordingTokenizer();
    const { attachments, provider } = await startProviderHarness('memory', {
      provider: { tokenizer: recording.tokenizer, budget: { maxTokens: 1200 }, serverInstructions: false },
    });
    const scope = { pipelineId: 'support' };
    await attachments.pin({ scope, server: 'gitnexus', uri: 'gitnexus://repos' });
    await attachments.pin({ scope, server: 'gitnexus', uri: 'gitnexus://repo/acme-shop/context' });
    const turn = { pipelineId: 'support' };
    const first = await provider.provide(turn);
    await attachments.pin({ scope, server: 'gitnexus', uri: 'gitnexus://repos', maxTokens: 160 });
    recording.reset();
    const capped = await provider.provide(turn);

    expect(first.trace.entries[0]?.tokens).toBeGreaterThan(160);
    expect(capped.trace.entries[0]?.tokens).toBeLessThanOrEqual(160);
    expect(capped.blocks).not.toEqual(first.blocks);
    expect(capped.trace.budget.usedTokens).toBe(await sharedTokenizer.count(renderText(capped.blocks)));
    expect(recording.calls.counted.some((length) => length <= contextPreamble.length)).toBe(true);
  });

  it('renders again when what shapes the rendering changes: the budget, or the message for relevant cuts', async () => {
    const { attachments, provider } = await startProviderHarness('memory', {
      provider: { budget: { maxTokens: 400, truncation: 'relevant' }, serverInstructions: false },
    });
    await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      uri: 'gitnexus://repo/acme-shop/context',
    });
    const ask = (text: string, maxTokens = 400) =>
      provider.provide({ pipelineId: 'support', message: { text }, budget: { maxTokens } });

    const first = await ask('checkout payments');
    const again = await ask('checkout payments');
    const otherQuestion = await ask('inventory stock levels');
    const smaller = await ask('checkout payments', 250);

    expect(again.blocks).toEqual(first.blocks);
    expect(first.trace.entries[0]?.status).toBe('truncated');
    expect(otherQuestion.blocks[1]?.text).not.toBe(first.blocks[1]?.text);
    expect(smaller.trace.budget.usedTokens).toBeLessThanOrEqual(250);
    for (const result of [first, otherQuestion, smaller]) {
      expect(result.trace.budget.usedTokens).toBe(await sharedTokenizer.count(renderText(result.blocks)));
    }
  });
});
