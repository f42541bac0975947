import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openTelemetry } from '../../src/opentelemetry.js';
import type { TraceEntry } from '../../src/types.js';
import { startProviderHarness } from '../support/provider-harness.js';

/** A reader the test collects from when it wants to, no export timer. */
class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const exporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = tracerProvider.getTracer('test');
const contextManager = new AsyncLocalStorageContextManager();

beforeAll(() => {
  // What every Node SDK setup registers: async context, and the W3C propagator.
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
});
afterAll(() => {
  context.disable();
  propagation.disable();
});
beforeEach(() => exporter.reset());

const turn = {
  pipelineId: 'support',
  conversationId: 'c-42',
  turnId: 'turn-1',
  message: {
    attachments: [
      { server: 'gitnexus', uri: 'gitnexus://repo/acme-shop/context' },
      { server: 'gitnexus', uri: 'gitnexus://repo/nonexistent/context' },
    ],
  },
};

function childrenOf(spans: readonly ReadableSpan[], parent: ReadableSpan): ReadableSpan[] {
  return spans.filter((span) => span.parentSpanContext?.spanId === parent.spanContext().spanId);
}

function named(spans: readonly ReadableSpan[], name: string): ReadableSpan[] {
  return spans.filter((span) => span.name === name);
}

describe('openTelemetry', () => {
  it('makes a span tree per turn: steps, attachments with their fate, MCP requests with traceparent sent in _meta', async () => {
    const telemetry = openTelemetry({ tracer });
    const { provider, attachments, fixture } = await startProviderHarness('http', {
      registry: { telemetry },
      provider: { telemetry },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });

    const host = tracer.startSpan('host request');
    const { trace: injection } = await context.with(trace.setSpan(context.active(), host), () =>
      provider.provide(turn),
    );
    host.end();
    const spans = exporter.getFinishedSpans();

    const [turnSpan] = named(spans, 'mcp-context turn');
    if (!turnSpan) throw new Error('no turn span');
    expect(turnSpan.parentSpanContext?.spanId).toBe(host.spanContext().spanId);
    expect(turnSpan.attributes).toEqual({
      'mcp_context.pipeline.id': 'support',
      'gen_ai.conversation.id': 'c-42',
      'mcp_context.turn.id': 'turn-1',
      'mcp_context.budget.max_tokens': 8000,
      'mcp_context.budget.used_tokens': injection.budget.usedTokens,
      'mcp_context.budget.tokenizer': 'tiktoken:o200k_base',
      'mcp_context.budget.exact': true,
      'mcp_context.attachments': 3,
    });
    expect(
      childrenOf(spans, turnSpan)
        .map((span) => span.name)
        .sort(),
    ).toEqual([
      'mcp-context attachment',
      'mcp-context attachment',
      'mcp-context attachment',
      'mcp-context budget',
      'mcp-context resolve',
    ]);

    // One attachment span per trace entry, carrying its fate.
    const attachmentSpans = named(childrenOf(spans, turnSpan), 'mcp-context attachment');
    const byUri = new Map(attachmentSpans.map((span) => [span.attributes['mcp.resource.uri'], span]));
    for (const entry of injection.entries) {
      const span = byUri.get(entry.uri);
      expect(span?.attributes).toMatchObject({
        'mcp_context.server': 'gitnexus',
        'mcp_context.scope': entry.scope,
        'mcp_context.status': entry.status,
        'mcp_context.tokens': entry.tokens,
        'mcp_context.original_tokens': entry.originalTokens,
        'mcp_context.cache': entry.cache,
      });
    }
    const context42 = byUri.get('gitnexus://repo/acme-shop/context');
    if (!context42) throw new Error('no attachment span');
    expect(context42.attributes['mcp_context.change']).toBe('new');
    // Its steps (and the listing that ranks by annotations, sent for the first attachment of a server).
    expect(childrenOf(spans, context42).map((span) => span.name)).toEqual(
      expect.arrayContaining(['mcp-context authorize', 'mcp-context fetch', 'mcp-context convert']),
    );
    const [fetchSpan] = named(childrenOf(spans, context42), 'mcp-context fetch');
    if (!fetchSpan) throw new Error('no fetch span');
    const [read] = childrenOf(spans, fetchSpan);
    expect(read?.name).toBe('resources/read');
    expect(read?.kind).toBe(SpanKind.CLIENT);
    expect(read?.attributes).toMatchObject({
      'mcp.method.name': 'resources/read',
      'mcp.resource.uri': 'gitnexus://repo/acme-shop/context',
      'mcp_context.server': 'gitnexus',
    });

    // Errors are recorded: on the attachment and on its request.
    const failed = byUri.get('gitnexus://repo/nonexistent/context');
    expect(failed?.status.code).toBe(SpanStatusCode.ERROR);
    expect(failed?.attributes['error.type']).toBe('RESOURCE_ERROR_BODY');
    expect(failed?.events.map((event) => event.name)).toEqual(['exception']);

    // The fixture server received each read's own span as its parent (MCP spec: params._meta).
    const readSpans = named(spans, 'resources/read');
    expect(readSpans).toHaveLength(3);
    expect(fixture.readMeta).toHaveLength(3);
    const expected = readSpans
      .map((span) => `00-${span.spanContext().traceId}-${span.spanContext().spanId}-01`)
      .sort();
    expect(fixture.readMeta.map((meta) => meta?.traceparent).sort()).toEqual(expected);
    expect(readSpans.every((span) => span.spanContext().traceId === host.spanContext().traceId)).toBe(true);
  });

  it('records turn, token, cache, read, request and invalidation metrics', async () => {
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const telemetry = openTelemetry({ tracer, meter: meterProvider.getMeter('test') });
    const { provider, attachments, fixture } = await startProviderHarness('memory', {
      fixture: { listChanged: true },
      registry: { telemetry },
      provider: { telemetry, budget: { maxTokens: 700 } },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    const first = await provider.provide(turn);
    const second = await provider.provide({ ...turn, turnId: 'turn-2' });
    await fixture.reindex();
    await expect.poll(() => provider.metrics?.invalidations).toBeGreaterThan(0);

    const { resourceMetrics } = await reader.collect();
    const points = new Map(
      resourceMetrics.scopeMetrics
        .flatMap((scope) => scope.metrics)
        .map((metric) => [
          metric.descriptor.name,
          metric.dataPoints as { attributes: object; value: unknown }[],
        ]),
    );
    const sum = (name: string, filter: (attributes: Record<string, unknown>) => boolean = () => true) =>
      (points.get(name) ?? [])
        .filter((point) => filter(point.attributes as Record<string, unknown>))
        .reduce((total, point) => total + (point.value as number), 0);
    const entries = [...first.trace.entries, ...second.trace.entries];

    expect(points.get('mcp_context.turn.duration')?.[0]?.value).toMatchObject({ count: 2 });
    expect(sum('mcp_context.tokens.injected')).toBe(
      entries.reduce((total, entry) => total + entry.tokens, 0),
    );
    const omitted = entries.filter(
      (entry) => entry.status === 'truncated' || entry.status === 'omitted-budget',
    );
    expect(omitted.length).toBeGreaterThan(0);
    for (const status of ['truncated', 'omitted-budget']) {
      expect(
        sum('mcp_context.tokens.omitted', (attributes) => attributes['mcp_context.status'] === status),
      ).toBe(
        entries
          .filter((entry) => entry.status === status)
          .reduce(
            (total, entry) =>
              total + (status === 'truncated' ? entry.originalTokens - entry.tokens : entry.originalTokens),
            0,
          ),
      );
    }
    expect(
      (points.get('mcp_context.cache.lookups') ?? []).every(
        (point) => (point.attributes as Record<string, unknown>)['mcp_context.pipeline.id'] === 'support',
      ),
    ).toBe(true);
    for (const cache of ['hit', 'miss']) {
      expect(
        sum('mcp_context.cache.lookups', (attributes) => attributes['mcp_context.cache'] === cache),
      ).toBe(entries.filter((entry) => entry.cache === cache).length);
    }
    expect(sum('mcp_context.reads')).toBe(fixture.readCount());
    expect(sum('mcp_context.invalidations')).toBeGreaterThan(0);
    expect(points.get('mcp.client.operation.duration')?.length).toBeGreaterThan(0);
  });

  it("recordTurn sums a turn's entries per cache outcome and per omission kind, once per attribute set", async () => {
    const reader = new CollectingReader();
    const meterProvider = new MeterProvider({ readers: [reader] });
    const telemetry = openTelemetry({ tracer, meter: meterProvider.getMeter('test') });
    const entry = (
      cache: TraceEntry['cache'],
      status: TraceEntry['status'],
      tokens: number,
      originalTokens: number,
    ) => ({ cache, status, tokens, originalTokens }) as TraceEntry;
    telemetry.recordTurn({
      turnId: 't',
      pipelineId: 'p',
      startedAt: new Date(0).toISOString(),
      durationMs: 250,
      budget: { maxTokens: 100, usedTokens: 60, tokenizer: 'tiktoken:o200k_base', exact: true, margin: 0 },
      entries: [
        entry('hit', 'injected', 10, 10),
        entry('hit', 'truncated', 20, 50),
        entry('miss', 'omitted-budget', 0, 40),
        entry('stale', 'injected', 5, 5),
        entry('bypass', 'truncated', 25, 26),
        entry('bypass', 'error', 0, 0),
        entry('bypass', 'injected', 0, 0),
      ],
    });
    const { resourceMetrics } = await reader.collect();
    const points = resourceMetrics.scopeMetrics
      .flatMap((scope) => scope.metrics)
      .flatMap((metric) =>
        (metric.dataPoints as { attributes: Record<string, unknown>; value: unknown }[]).map((point) => [
          metric.descriptor.name,
          point.attributes,
          point.value,
        ]),
      )
      .filter(([name]) => name !== 'mcp_context.turn.duration');
    expect(points).toEqual(
      expect.arrayContaining([
        ['mcp_context.cache.lookups', { 'mcp_context.pipeline.id': 'p', 'mcp_context.cache': 'hit' }, 2],
        ['mcp_context.cache.lookups', { 'mcp_context.pipeline.id': 'p', 'mcp_context.cache': 'miss' }, 1],
        ['mcp_context.cache.lookups', { 'mcp_context.pipeline.id': 'p', 'mcp_context.cache': 'stale' }, 1],
        ['mcp_context.cache.lookups', { 'mcp_context.pipeline.id': 'p', 'mcp_context.cache': 'bypass' }, 3],
        ['mcp_context.tokens.injected', { 'mcp_context.pipeline.id': 'p' }, 60],
        [
          'mcp_context.tokens.omitted',
          { 'mcp_context.pipeline.id': 'p', 'mcp_context.status': 'omitted-budget' },
          40,
        ],
        [
          'mcp_context.tokens.omitted',
          { 'mcp_context.pipeline.id': 'p', 'mcp_context.status': 'truncated' },
          31,
        ],
      ]),
    );
    expect(points).toHaveLength(7);
  });

  it('uses a global tracer provider registered after it was made; before that, starts no span', () => {
    const telemetry = openTelemetry();
    expect(telemetry.startSpan('before')).toBeUndefined();
    trace.setGlobalTracerProvider(tracerProvider);
    try {
      const span = telemetry.startSpan('after', { 'mcp_context.server': 'gitnexus', absent: undefined });
      expect(span).toBeDefined();
      span?.end();
      expect(exporter.getFinishedSpans().map((finished) => [finished.name, finished.attributes])).toEqual([
        ['after', { 'mcp_context.server': 'gitnexus' }],
      ]);
    } finally {
      trace.disable();
    }
    expect(telemetry.startSpan('disabled again')).toBeUndefined();
  });

  it('with no tracer provider registered: no spans, no _meta sent, the same context', async () => {
    const telemetry = openTelemetry(); // the global API with nothing registered
    const plain = await startProviderHarness('memory');
    const instrumented = await startProviderHarness('memory', {
      registry: { telemetry },
      provider: { telemetry },
    });
    const [withTelemetry, without] = await Promise.all([
      instrumented.provider.provide(turn),
      plain.provider.provide(turn),
    ]);
    expect(withTelemetry.blocks).toEqual(without.blocks);
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(instrumented.fixture.readMeta).toEqual([undefined, undefined]);
  });

  it('makes a span per reconnect attempt, with its failure recorded', async () => {
    const telemetry = openTelemetry({ tracer });
    const { servers, fixture } = await startProviderHarness('memory', {
      registry: { telemetry, reconnect: { initialDelayMs: 1, maxDelayMs: 2, jitter: 0 } },
    });
    await servers.listResources('gitnexus');
    await fixture.close();
    await expect
      .poll(() => named(exporter.getFinishedSpans(), 'mcp-context reconnect').length)
      .toBeGreaterThan(0);
    const [attempt] = named(exporter.getFinishedSpans(), 'mcp-context reconnect');
    expect(attempt?.attributes).toMatchObject({
      'mcp_context.server': 'gitnexus',
      'mcp_context.reconnect.attempt': 1,
      'error.type': 'CONNECT_FAILED',
    });
    expect(attempt?.status.code).toBe(SpanStatusCode.ERROR);
  });
});
