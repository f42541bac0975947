import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { renderText, toAnthropicContent, toOpenAIMessages } from '../../src/index.js';
import { expectConforms } from './support/contract.js';
import { startTestService } from './support/start-test-service.js';

/** A loopback port nothing listens on: a server configured there is down. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('POST /v1/provide', () => {
  it("answers a turn with the pipeline's pins and the message's attachments, traced, in every format asked for", async () => {
    const { request } = await startTestService();
    const pinned = await request('POST', '/v1/pins', {
      body: { scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://setup', maxTokens: 300 },
    });
    expect(pinned.status).toBe(200);
    const response = await request('POST', '/v1/provide', {
      body: {
        pipelineId: 'support',
        conversationId: 'c-42',
        principal: 'user-17',
        message: {
          text: 'which repositories are indexed?',
          attachments: [
            { server: 'gitnexus', uri: 'gitnexus://repos' },
            {
              server: 'gitnexus',
              template: 'gitnexus://repo/{name}/context',
              arguments: { name: 'acme-shop' },
            },
          ],
        },
        model: { images: false },
        budget: { maxTokens: 3000 },
        format: ['text', 'openai', 'anthropic'],
      },
    });
    expect(response.status).toBe(200);
    expectConforms('provide', 200, response.json);
    const { blocks, trace, rendered } = response.json;
    expect(trace.pipelineId).toBe('support');
    expect(trace.conversationId).toBe('c-42');
    expect(trace.budget.maxTokens).toBe(3000);
    expect(
      trace.entries.map((entry: { uri: string; status: string; scope: string }) => [
        entry.scope,
        entry.uri,
        entry.status,
      ]),
    ).toEqual([
      ['message', 'gitnexus://repos', 'injected'],
      ['message', 'gitnexus://repo/acme-shop/context', 'injected'],
      ['pipeline', 'gitnexus://setup', 'truncated'],
    ]);
    expect(blocks.filter((block: { kind: string }) => block.kind === 'resource')).toHaveLength(3);
    // The rendered forms are the library's renderers of these very blocks.
    expect(rendered.text).toBe(renderText(blocks));
    expect(rendered.openai).toEqual(toOpenAIMessages(blocks));
    expect(rendered.anthropic).toEqual(toAnthropicContent(blocks, { cacheControl: true }));
    // The stable prefix (preamble and the pipeline's pin) ends with cache_control; the message's attachments follow it.
    const marked = rendered.anthropic.filter(
      (part: { cache_control?: unknown }) => part.cache_control !== undefined,
    );
    expect(marked).toHaveLength(1);
    expect(marked[0].text).toContain('uri="gitnexus://setup"');
  });

  it('returns only the blocks and the trace when no format is asked for', async () => {
    const { request } = await startTestService();
    const response = await request('POST', '/v1/provide', { body: { pipelineId: 'support' } });
    expect(response.status).toBe(200);
    expect(Object.keys(response.json).sort()).toEqual(['blocks', 'trace']);
    expect(response.json.trace.entries).toEqual([]);
  });

  it('is still a 200 turn when a server is down: its attachment fails in the trace, the others are injected', async () => {
    const port = await closedPort();
    const { request } = await startTestService({
      servers: { down: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } },
      config: { bindings: { support: { servers: ['gitnexus', 'down'] } }, requestTimeoutMs: 2_000 },
    });
    const response = await request('POST', '/v1/provide', {
      body: {
        pipelineId: 'support',
        message: {
          attachments: [
            { server: 'down', uri: 'gitnexus://repos' },
            { server: 'gitnexus', uri: 'gitnexus://repos' },
          ],
        },
      },
    });
    expect(response.status).toBe(200);
    expectConforms('provide', 200, response.json);
    const fates = response.json.trace.entries.map(
      (entry: { server: string; status: string; error?: { code: string } }) => [
        entry.server,
        entry.status,
        entry.error?.code,
      ],
    );
    expect(fates).toEqual([
      ['down', 'error', 'CONNECT_FAILED'],
      ['gitnexus', 'injected', undefined],
    ]);
  });

  it('answers an unknown pipeline 404 UNKNOWN_PIPELINE, naming the nearest one', async () => {
    const { request } = await startTestService();
    const response = await request('POST', '/v1/provide', { body: { pipelineId: 'suport' } });
    expect(response.status).toBe(404);
    expectConforms('provide', 404, response.json);
    expect(response.json.error.code).toBe('UNKNOWN_PIPELINE');
    expect(response.json.error.message).toContain('did you mean "support"?');
    expect(response.json.error.field).toBe('pipelineId');
  });
});

describe('the probes', () => {
  it('/healthz answers ok and /readyz reports the store and every server session', async () => {
    const { request } = await startTestService();
    const health = await request('GET', '/healthz');
    expect(health).toMatchObject({ status: 200, json: { status: 'ok' } });
    await expect
      .poll(async () => (await request('GET', '/readyz')).json.checks?.servers)
      .toEqual({ gitnexus: 'connected', other: 'connected' });
    const ready = await request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expectConforms('ready', 200, ready.json);
    expect(ready.json).toMatchObject({ status: 'ready', checks: { store: 'ok', draining: false } });
  });

  it('/readyz is 503 when the store does not answer', async () => {
    const { request, service } = await startTestService();
    await service.runtime.store.close?.();
    // The memory store keeps answering after close: swap in one that fails, as a dropped database would.
    (service.runtime.store as { list: unknown }).list = async () => {
      throw new Error('connection terminated');
    };
    const ready = await request('GET', '/readyz');
    expect(ready.status).toBe(503);
    expectConforms('ready', 503, ready.json);
    expect(ready.json.checks.store).toBe('connection terminated');
  });
});
