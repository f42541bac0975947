import { describe, expect, it } from 'vitest';
import { injectionTraceSchema } from '../../src/service/response-schemas.js';
import { startTestService } from './support/start-test-service.js';

/** Reads server-sent events from a response until `count` `trace` events have come. */
async function readTraceEvents(response: Response, count: number): Promise<unknown[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const events: unknown[] = [];
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^event: trace\ndata: (.*)$/s.exec(event)?.[1];
      if (data !== undefined) events.push(JSON.parse(data));
      end = buffer.indexOf('\n\n');
    }
  }
  await reader.cancel();
  return events;
}

describe('GET /v1/traces', () => {
  it('streams each answered turn of the pipelines the key may see, as an InjectionTrace event', async () => {
    const { request, url } = await startTestService();
    const stream = await fetch(`${url}/v1/traces?pipelineId=support`);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = readTraceEvents(stream, 2);
    await request('POST', '/v1/provide', { body: { pipelineId: 'billing' } });
    await request('POST', '/v1/provide', {
      body: { pipelineId: 'support', turnId: 't-1', conversationId: 'c-1' },
    });
    await request('POST', '/v1/provide', { body: { pipelineId: 'support', turnId: 't-2' } });
    const traces = (await events) as { turnId: string; pipelineId: string; conversationId?: string }[];
    // The billing turn is not this stream's pipeline.
    expect(traces.map((trace) => [trace.turnId, trace.pipelineId, trace.conversationId])).toEqual([
      ['t-1', 'support', 'c-1'],
      ['t-2', 'support', undefined],
    ]);
    for (const trace of traces) expect(injectionTraceSchema.safeParse(trace).success).toBe(true);
  });

  it("shows a tenant only its own conversations' turns, with the conversation ids it sent", async () => {
    const keys = { KEY_A: 'a-key-0123456789abcdef', KEY_B: 'b-key-0123456789abcdef' };
    const { request, url } = await startTestService({
      config: {
        service: {
          tenants: [
            { id: 'a', keyEnv: 'KEY_A', pipelines: ['support'] },
            { id: 'b', keyEnv: 'KEY_B', pipelines: ['support'] },
          ],
        },
      },
      environment: keys,
    });
    const stream = await fetch(`${url}/v1/traces`, { headers: { authorization: `Bearer ${keys.KEY_A}` } });
    const events = readTraceEvents(stream, 1);
    await request('POST', '/v1/provide', {
      body: { pipelineId: 'support', conversationId: 'c-1', turnId: 'theirs' },
      key: keys.KEY_B,
    });
    await request('POST', '/v1/provide', {
      body: { pipelineId: 'support', conversationId: 'c-1', turnId: 'mine' },
      key: keys.KEY_A,
    });
    expect(
      ((await events) as { turnId: string; conversationId: string }[]).map((trace) => [
        trace.turnId,
        trace.conversationId,
      ]),
    ).toEqual([['mine', 'c-1']]);
    expect((await fetch(`${url}/v1/traces`)).status).toBe(401);
  });

  it('refuses streams past service.maxTraceStreams with 503', async () => {
    const { url } = await startTestService({ config: { service: { maxTraceStreams: 1 } } });
    const first = await fetch(`${url}/v1/traces`);
    expect(first.status).toBe(200);
    const second = await fetch(`${url}/v1/traces`);
    expect(second.status).toBe(503);
    expect(((await second.json()) as { error: { code: string; limit: number } }).error).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      limit: 1,
    });
    await first.body?.cancel();
  });
});

describe('GET /metrics', () => {
  it('answers the Prometheus text format: requests by route and status, refusals, turns, fates, cache figures, sessions', async () => {
    const { request } = await startTestService();
    await request('POST', '/v1/provide', {
      body: {
        pipelineId: 'support',
        message: { attachments: [{ server: 'gitnexus', uri: 'gitnexus://repos' }] },
      },
    });
    await request('POST', '/v1/provide', { body: { pipelineId: 'nope' } });
    await request('GET', '/v1/pins?pipelineId=support', { headers: { 'x-forwarded-for': '203.0.113.9' } });
    const response = await request('GET', '/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = response.json as string;
    expect(text).toContain(
      'mcp_context_http_requests_total{method="POST",route="/v1/provide",status="200"} 1',
    );
    expect(text).toContain(
      'mcp_context_http_requests_total{method="POST",route="/v1/provide",status="404"} 1',
    );
    expect(text).toContain('mcp_context_refusals_total{code="UNAUTHENTICATED"} 1');
    expect(text).toContain('mcp_context_turns_total 1');
    expect(text).toContain('mcp_context_trace_entries_total{status="injected"} 1');
    expect(text).toContain('mcp_context_cache_misses_total 1');
    expect(text).toContain('mcp_context_server_connected{server="gitnexus"} 1');
    expect(text).toMatch(/mcp_context_http_request_duration_seconds_count\{route="\/v1\/provide"\} 2\n/);
    // The process's memory, by the Node.js client's names; no shared tier without Redis.
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    expect(gauge('process_resident_memory_bytes')).toBeGreaterThan(gauge('nodejs_heap_size_used_bytes'));
    expect(gauge('nodejs_heap_size_used_bytes')).toBeGreaterThan(1024 * 1024);
    expect(gauge('nodejs_heap_size_total_bytes')).toBeGreaterThanOrEqual(
      gauge('nodejs_heap_size_used_bytes'),
    );
    expect(gauge('nodejs_external_memory_bytes')).toBeGreaterThan(0);
    expect(text).not.toContain('mcp_context_shared_tier_');
    // Every sample line is `name{labels} number`; every family has HELP and TYPE.
    for (const line of text.trimEnd().split('\n')) {
      expect(line).toMatch(/^(# (HELP|TYPE) \w+ .+|\w+(\{[^}]*\})? -?[\d.e+-]+)$/);
    }
  });
});
