import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import type { Telemetry, TelemetryAttributes, TelemetrySpan } from '../../src/trace/telemetry.js';
import type { InjectionTrace } from '../../src/types.js';
import { startProviderHarness } from '../support/provider-harness.js';

/** A span as the recording telemetry saw it: its parent, attributes, errors and whether it ended. */
interface RecordedSpan {
  readonly name: string;
  readonly parent: RecordedSpan | undefined;
  readonly attributes: Record<string, unknown>;
  readonly errors: unknown[];
  ended: boolean;
}

/**
 * The Telemetry interface implemented over plain arrays, with the active span carried across
 * awaits as the OpenTelemetry context manager carries it: what the provider reports to a backend,
 * observed exactly. `sampled` decides, per span name, whether a span is recorded at all.
 */
function recordingTelemetry(sampled: (name: string) => boolean = () => true) {
  const spans: RecordedSpan[] = [];
  const turns: InjectionTrace[] = [];
  const active = new AsyncLocalStorage<RecordedSpan>();
  const handles = new WeakMap<TelemetrySpan, RecordedSpan>();
  const telemetry: Telemetry = {
    startSpan(name: string, attributes?: TelemetryAttributes) {
      if (!sampled(name)) return undefined;
      const recorded: RecordedSpan = {
        name,
        parent: active.getStore(),
        attributes: { ...attributes },
        errors: [],
        ended: false,
      };
      spans.push(recorded);
      const handle: TelemetrySpan = {
        setAttributes: (more) => Object.assign(recorded.attributes, more),
        recordError: (error) => recorded.errors.push(error),
        end: () => {
          recorded.ended = true;
        },
      };
      handles.set(handle, recorded);
      return handle;
    },
    withSpan: (span, run) => active.run(handles.get(span) as RecordedSpan, run),
    traceContext: () => undefined,
    recordRequest: () => {},
    recordTurn: (trace) => {
      turns.push(trace);
    },
    recordInvalidation: () => {},
  };
  /** Each span as `parent > name`, in the order they were started. */
  const tree = () => spans.map((span) => `${span.parent?.name ?? '-'} > ${span.name}`);
  const named = (name: string) => spans.filter((span) => span.name === name);
  return { telemetry, spans, turns, tree, named };
}

const repos = 'gitnexus://repos';
const missing = 'gitnexus://repo/nonexistent/context';

describe('a turn reported to telemetry', () => {
  it('one turn span with its steps, a span per attachment with its authorize/fetch/convert steps and its fate, and the turn recorded once', async () => {
    const recording = recordingTelemetry();
    const { provider, attachments } = await startProviderHarness('memory', {
      fixture: { instructions: 'Ask for a repository by name.' },
      provider: { telemetry: recording.telemetry, serverInstructions: { maxTokens: 200 } },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: repos });
    const result = await provider.provide({
      pipelineId: 'support',
      conversationId: 'c-7',
      turnId: 't-1',
      message: { attachments: [{ server: 'gitnexus', uri: missing }] },
    });
    const { trace } = result;

    expect(recording.tree()).toEqual([
      '- > mcp-context turn',
      'mcp-context turn > mcp-context resolve',
      // One span per attachment, in the turn's order (the message's first), open to the turn's end.
      'mcp-context turn > mcp-context attachment',
      'mcp-context turn > mcp-context attachment',
      'mcp-context attachment > mcp-context authorize',
      'mcp-context attachment > mcp-context authorize',
      'mcp-context attachment > mcp-context fetch',
      'mcp-context attachment > mcp-context fetch',
      // The message's read answers an error body: nothing to convert.
      'mcp-context attachment > mcp-context convert',
      'mcp-context turn > mcp-context instructions',
      'mcp-context turn > mcp-context budget',
    ]);
    expect(recording.spans.every((span) => span.ended)).toBe(true);
    const [turnSpan] = recording.named('mcp-context turn');
    expect(turnSpan?.attributes).toEqual({
      'mcp_context.pipeline.id': 'support',
      'gen_ai.conversation.id': 'c-7',
      'mcp_context.agent.id': undefined,
      'mcp_context.turn.id': 't-1',
      'mcp_context.budget.max_tokens': 8000,
      'mcp_context.budget.used_tokens': trace.budget.usedTokens,
      'mcp_context.budget.tokenizer': 'tiktoken:o200k_base',
      'mcp_context.budget.exact': true,
      'mcp_context.attachments': 2,
    });
    expect(trace.budget.usedTokens).toBeGreaterThan(0);

    // Each attachment's steps sit in its own span, which ends carrying its fate.
    const [messageSpan, pinSpan] = recording.named('mcp-context attachment');
    for (const [span, uri, scope, steps] of [
      [messageSpan, missing, 'message', ['mcp-context authorize', 'mcp-context fetch']],
      [pinSpan, repos, 'pipeline', ['mcp-context authorize', 'mcp-context fetch', 'mcp-context convert']],
    ] as const) {
      const entry = trace.entries.find((candidate) => candidate.uri === uri);
      expect(span?.attributes).toEqual({
        'mcp_context.server': 'gitnexus',
        'mcp.resource.uri': uri,
        'mcp_context.scope': scope,
        'mcp_context.status': entry?.status,
        'mcp_context.tokens': entry?.tokens,
        'mcp_context.original_tokens': entry?.originalTokens,
        'mcp_context.cache': entry?.cache,
        'mcp_context.change': entry?.change,
        'mcp_context.bytes': entry?.bytes,
        'mcp_context.mime_type': entry?.mimeType,
        'mcp_context.reason': entry?.reason,
      });
      expect(recording.spans.filter((child) => child.parent === span).map((child) => child.name)).toEqual(
        steps,
      );
    }
    expect(trace.entries.map((entry) => [entry.uri, entry.status])).toEqual([
      [missing, 'error'],
      [repos, 'injected'],
    ]);
    expect(messageSpan?.errors).toEqual([trace.entries[0]?.error]);
    expect(pinSpan?.errors).toEqual([]);

    // The metrics get the very trace the host gets, once.
    expect(recording.turns).toHaveLength(1);
    expect(recording.turns[0]).toBe(trace);
  });

  it('a turn nobody samples makes no step spans, yet its metrics are recorded and its context is the same', async () => {
    // A tracer that drops the turn's root span would record its children as roots of their own.
    const recording = recordingTelemetry((name) => name !== 'mcp-context turn');
    const { provider, attachments } = await startProviderHarness('memory', {
      provider: { telemetry: recording.telemetry },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: repos });
    const { trace, blocks } = await provider.provide({ pipelineId: 'support', turnId: 't-2' });

    expect(recording.spans).toEqual([]);
    expect(recording.turns).toEqual([trace]);
    expect(trace.entries.map((entry) => [entry.uri, entry.status, entry.cache])).toEqual([
      [repos, 'injected', 'miss'],
    ]);
    expect(blocks.map((block) => block.kind)).toEqual(['preamble', 'resource']);
  });

  it('a turn whose telemetry throws fails as a rejection (provide never throws synchronously), and records nothing', async () => {
    const recording = recordingTelemetry();
    const failure = new Error('tracer broke');
    const { provider, attachments } = await startProviderHarness('memory', {
      provider: {
        telemetry: {
          ...recording.telemetry,
          startSpan: () => {
            throw failure;
          },
        },
      },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: repos });
    let answered: Promise<unknown> | undefined;
    expect(() => {
      answered = provider.provide({ pipelineId: 'support' });
    }).not.toThrow();
    await expect(answered).rejects.toBe(failure);
    expect(recording.turns).toEqual([]);
  });
});
