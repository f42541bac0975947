import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { createClaudeTokenizer } from '../../src/budget/claude-tokenizer.js';
import { createGeminiTokenizer } from '../../src/budget/gemini-tokenizer.js';
import { renderText } from '../../src/render/render-text.js';
import { startControlledServer } from '../support/controlled-server.js';
import { sharedTokenizer, startProviderHarness } from '../support/provider-harness.js';

const prose = Array.from(
  { length: 400 },
  (_, line) => `Line ${line}: the checkout service validates the cart, reserves stock and charges the card.`,
).join('\n');

/** A provider that picks each turn's tokenizer by its model (no `tokenizer` option), one long pin. */
async function familyProvider(maxTokens: number, safetyMargin?: number) {
  const server = startControlledServer({
    'doc://long': [{ uri: 'doc://long', mimeType: 'text/plain', text: prose }],
  });
  onTestFinished(async () => {
    await server.close();
  });
  const harness = await startProviderHarness('memory', {
    extraServers: { docs: server.serverConfig },
    provider: {
      cache: false,
      tokenizer: undefined,
      budget: { maxTokens, ...(safetyMargin !== undefined && { safetyMargin }) },
    },
  });
  await harness.attachments.pin({ scope: { pipelineId: 'support' }, server: 'docs', uri: 'doc://long' });
  return harness.provider;
}

const gemmaPromise = createGeminiTokenizer();
const claude = createClaudeTokenizer({ model: 'claude-opus-4-7', o200k: sharedTokenizer });
afterAll(async () => {
  (await gemmaPromise).dispose();
  claude.dispose();
});

describe('a turn is budgeted in its model’s tokens', () => {
  it('the trace names the tokenizer, its exactness and margin; the rendering counted so is usedTokens, within maxTokens × (1 - margin)', async () => {
    const provider = await familyProvider(2000);
    const gemma = await gemmaPromise;
    const cases = [
      { id: undefined, tokenizer: sharedTokenizer, exact: true, margin: 0 },
      { id: 'gpt-4o', tokenizer: sharedTokenizer, exact: true, margin: 0 },
      { id: 'claude-opus-4-7', tokenizer: claude, exact: false, margin: 0.15 },
      { id: 'gemini-2.5-flash', tokenizer: gemma, exact: true, margin: 0 },
      { id: 'llama-3.1-8b', tokenizer: sharedTokenizer, exact: false, margin: 0.1 },
    ];
    const shown: number[] = [];
    for (const expected of cases) {
      const { trace, blocks } = await provider.provide({
        pipelineId: 'support',
        ...(expected.id !== undefined && { model: { id: expected.id } }),
      });
      expect(trace.budget).toMatchObject({
        maxTokens: 2000,
        tokenizer: expected.tokenizer.name,
        exact: expected.exact,
        margin: expected.margin,
      });
      const text = renderText(blocks);
      expect(await expected.tokenizer.count(text)).toBe(trace.budget.usedTokens);
      expect(trace.budget.usedTokens).toBeLessThanOrEqual(Math.floor(2000 * (1 - expected.margin)));
      // Cut to fit, using most of what it may.
      expect(trace.entries[0]?.status).toBe('truncated');
      expect(trace.budget.usedTokens).toBeGreaterThan(2000 * (1 - expected.margin) * 0.9);
      shown.push(await sharedTokenizer.count(text));
    }
    // Claude's turn shows fewer o200k tokens than OpenAI's: its tokens are more, and some held back.
    expect(shown[2]).toBeLessThan((shown[1] as number) * 0.6);
  }, 120_000);

  it('a larger safetyMargin of the budget wins over the family’s', async () => {
    const provider = await familyProvider(2000, 0.3);
    const { trace } = await provider.provide({ pipelineId: 'support', model: { id: 'claude-opus-4-7' } });
    expect(trace.budget.margin).toBe(0.3);
    expect(trace.budget.usedTokens).toBeLessThanOrEqual(1400);
  }, 60_000);

  it('a host’s one tokenizer counts every turn, whatever its model', async () => {
    const server = startControlledServer({
      'doc://long': [{ uri: 'doc://long', mimeType: 'text/plain', text: prose }],
    });
    onTestFinished(async () => {
      await server.close();
    });
    const { provider, attachments } = await startProviderHarness('memory', {
      extraServers: { docs: server.serverConfig },
      provider: { cache: false, budget: { maxTokens: 2000 } },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'docs', uri: 'doc://long' });
    const { trace } = await provider.provide({ pipelineId: 'support', model: { id: 'claude-opus-4-7' } });
    expect(trace.budget).toMatchObject({ tokenizer: 'tiktoken:o200k_base', exact: true, margin: 0 });
  }, 60_000);

  it('a model id that is not a non-empty string is INVALID_OPTION', async () => {
    const provider = await familyProvider(2000);
    await expect(provider.provide({ pipelineId: 'support', model: { id: '' } })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      field: 'turn.model.id',
    });
  });
});
