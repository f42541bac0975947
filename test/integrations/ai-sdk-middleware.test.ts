import type {
  LanguageModelV3CallOptions,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
} from '@ai-sdk/provider';
import { generateText, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { resourceContextMiddleware } from '../../src/integrations/ai-sdk-middleware.js';
import type { ProvideResult, Turn } from '../../src/types.js';
import { startProviderHarness } from '../support/provider-harness.js';

const reply: LanguageModelV3GenerateResult = {
  content: [{ type: 'text', text: 'ok' }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  },
  warnings: [],
};

const prompt: LanguageModelV3Prompt = [
  { role: 'system', content: 'You are the support bot.' },
  { role: 'user', content: [{ type: 'text', text: 'hello' }] },
  { role: 'assistant', content: [{ type: 'text', text: 'hi, how can I help?' }] },
  { role: 'user', content: [{ type: 'text', text: 'why does checkout fail?' }] },
];

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

async function setup() {
  const harness = await startProviderHarness('memory');
  await harness.attachments.pin({
    scope: { pipelineId: 'support' },
    server: 'gitnexus',
    uri: 'gitnexus://repos',
  });
  const turns: Turn[] = [];
  const results: ProvideResult[] = [];
  const options = {
    provider: harness.provider,
    turn: () => ({
      pipelineId: 'support',
      message: { attachments: [{ server: 'gitnexus', uri: 'gitnexus://repo/acme-shop/process/checkout' }] },
    }),
    onProvided: (result: ProvideResult) => results.push(result),
  };
  const wrappedProvider = {
    provide: (turn: Turn) => {
      turns.push(turn);
      return harness.provider.provide(turn);
    },
  };
  return { options: { ...options, provider: wrappedProvider }, turns, results };
}

const transform = async (
  middleware: ReturnType<typeof resourceContextMiddleware>,
  params: LanguageModelV3CallOptions,
) => middleware.transformParams?.({ type: 'generate', params, model: new MockLanguageModelV3() });

describe('resourceContextMiddleware', () => {
  it('names the wrapped model in the turn (its id picks the tokenizer), unless the turn names one', async () => {
    const { options, turns } = await setup();
    const middleware = resourceContextMiddleware(options);
    const params: LanguageModelV3CallOptions = {
      prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    };
    await middleware.transformParams?.({
      type: 'generate',
      params,
      model: new MockLanguageModelV3({ modelId: 'claude-opus-4-7' }),
    });
    expect(turns[0]?.model).toEqual({ id: 'claude-opus-4-7' });
    const named = resourceContextMiddleware({
      ...options,
      turn: () => ({ pipelineId: 'support', model: { id: 'gpt-4o', images: true } }),
    });
    await named.transformParams?.({
      type: 'generate',
      params,
      model: new MockLanguageModelV3({ modelId: 'claude-opus-4-7' }),
    });
    expect(turns[1]?.model).toEqual({ id: 'gpt-4o', images: true });
  });

  it('through generateText: the model receives the framed resources in a system message after the first', async () => {
    const { options, turns, results } = await setup();
    const model = new MockLanguageModelV3({ doGenerate: reply });
    const wrapped = wrapLanguageModel({ model, middleware: resourceContextMiddleware(options) });
    await generateText({
      model: wrapped,
      system: 'You are the support bot.',
      messages: [{ role: 'user', content: 'why does checkout fail?' }],
    });
    const sent = model.doGenerateCalls[0]?.prompt ?? [];
    expect(sent.map((message) => message.role)).toEqual(['system', 'system', 'user']);
    const context = sent[1]?.content as string;
    expect(context.startsWith('The host attached the MCP resources below as reference data.')).toBe(true);
    expect(context).toContain('uri="gitnexus://repos"');
    expect(context).toContain('uri="gitnexus://repo/acme-shop/process/checkout"');
    // The query for relevance comes from the last user message when the turn has none.
    expect(turns[0]?.message?.text).toBe('why does checkout fail?');
    expect(results[0]?.trace.entries).toHaveLength(2);
  });

  it('before-last-user: a user message with the context right before the last user message, input untouched', async () => {
    const { options } = await setup();
    const params = deepFreeze({ prompt: structuredClone(prompt) }) as LanguageModelV3CallOptions;
    const snapshot = structuredClone(params);
    const result = await transform(
      resourceContextMiddleware({ ...options, placement: 'before-last-user' }),
      params,
    );
    expect(params).toEqual(snapshot);
    expect(result?.prompt.map((message) => message.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'user',
    ]);
    expect(result?.prompt[3]).toMatchObject({ role: 'user', content: [{ type: 'text' }] });
    expect(result?.prompt[4]).toEqual(prompt[3]);
  });

  it('last-user: appended to the last user message, after what the user wrote', async () => {
    const { options } = await setup();
    const params = deepFreeze({ prompt: structuredClone(prompt) }) as LanguageModelV3CallOptions;
    const result = await transform(resourceContextMiddleware({ ...options, placement: 'last-user' }), params);
    const last = result?.prompt.at(-1);
    expect(result?.prompt).toHaveLength(4);
    expect(last?.role).toBe('user');
    const content = last?.role === 'user' ? last.content : [];
    expect(content[0]).toEqual({ type: 'text', text: 'why does checkout fail?' });
    expect(content[1]).toMatchObject({ type: 'text' });
    expect(content[1]?.type === 'text' && content[1].text).toContain('<mcp-resource ');
  });

  it('images become file parts when the model accepts them', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64');
    const provider = {
      provide: async (): Promise<ProvideResult> => ({
        blocks: [
          { kind: 'preamble', text: 'P' },
          {
            kind: 'resource',
            text: 'F',
            provenance: {
              scope: 'message',
              server: 's',
              uri: 'x://logo.png',
              mimeType: 'image/png',
              sha256: '0',
              truncated: false,
            },
            parts: [{ kind: 'image', uri: 'x://logo.png', mimeType: 'image/png', data: png, bytes: 4 }],
          },
        ],
        trace: {
          turnId: 't',
          pipelineId: 'p',
          startedAt: '',
          durationMs: 0,
          budget: { maxTokens: 1, usedTokens: 1, tokenizer: 'tiktoken:o200k_base', exact: true, margin: 0 },
          entries: [],
        },
      }),
    };
    const middleware = resourceContextMiddleware({ provider, turn: () => ({ pipelineId: 'p' }) });
    const result = await transform(middleware, { prompt: structuredClone(prompt) });
    expect(result?.prompt.map((message) => message.role)).toEqual([
      'system',
      'system',
      'user',
      'assistant',
      'user',
      'user',
    ]);
    expect(result?.prompt[4]).toEqual({
      role: 'user',
      content: [{ type: 'file', data: png, mediaType: 'image/png', filename: 'logo.png' }],
    });
  });

  it('a turn for a pipeline the policy does not know fails the call with UNKNOWN_PIPELINE; the model is never called', async () => {
    const { options } = await setup();
    const model = new MockLanguageModelV3({ doGenerate: reply });
    const middleware = resourceContextMiddleware({ ...options, turn: () => ({ pipelineId: 'suport' }) });
    const wrapped = wrapLanguageModel({ model, middleware });
    const failure = await generateText({
      model: wrapped,
      messages: [{ role: 'user', content: 'why does checkout fail?' }],
      maxRetries: 0,
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'UNKNOWN_PIPELINE',
      value: 'suport',
      message: expect.stringContaining('did you mean "support"?'),
    });
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('refuses a bad placement, naming it', () => {
    expect(() =>
      resourceContextMiddleware({
        provider: { provide: async () => ({}) as ProvideResult },
        turn: () => ({ pipelineId: 'p' }),
        placement: 'top' as 'system',
      }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_OPTION', field: 'placement', value: 'top' }));
  });
});
