import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { expectConforms } from './support/contract.js';
import { startTestService } from './support/start-test-service.js';

/** Sends raw bytes on a fresh connection; resolves with what came back once the server closes it (or after `waitMs`). */
function rawExchange(
  url: string,
  chunks: { data: string; delayMs?: number }[],
  waitMs = 5_000,
): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, waitMs);
    socket.on('data', (data) => {
      received += data.toString();
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('error', reject);
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (chunk.delayMs) await new Promise((done) => setTimeout(done, chunk.delayMs));
        if (!socket.destroyed) socket.write(chunk.data);
      }
    });
  });
}

describe('bad input gets a typed JSON error and the right status', () => {
  it('malformed JSON is 400 INVALID_JSON', async () => {
    const { request } = await startTestService();
    const response = await request('POST', '/v1/provide', { body: '{"pipelineId": "support",' });
    expect(response.status).toBe(400);
    expectConforms('provide', 400, response.json);
    expect(response.json.error).toMatchObject({ code: 'INVALID_JSON', field: 'body' });
  });

  it('an unknown field is 400 INVALID_REQUEST naming it, with the nearest known field as a hint', async () => {
    const { request } = await startTestService();
    const response = await request('POST', '/v1/provide', {
      body: { pipelineId: 'support', message: { text: 'hi', atachments: [] } },
    });
    expect(response.status).toBe(400);
    expectConforms('provide', 400, response.json);
    expect(response.json.error).toMatchObject({
      code: 'INVALID_REQUEST',
      field: 'body.message.atachments',
      value: 'atachments',
      hint: 'attachments',
    });
    expect(response.json.error.message).toBe(
      'body.message.atachments: unknown field; did you mean "attachments"? (known: text, attachments)',
    );
    const query = await request('GET', '/v1/pins?pipelineID=support');
    expect(query.json.error).toMatchObject({ field: 'query.pipelineID', hint: 'pipelineId' });
  });

  it('a wrong type names the field; a query parameter given twice is refused', async () => {
    const { request } = await startTestService();
    const response = await request('POST', '/v1/provide', {
      body: { pipelineId: 'support', budget: { maxTokens: -5 } },
    });
    expect(response.status).toBe(400);
    expect(response.json.error.field).toBe('body.budget.maxTokens');
    const twice = await request('GET', '/v1/pins?pipelineId=support&pipelineId=billing');
    expect(twice.json.error).toMatchObject({ code: 'INVALID_REQUEST', field: 'query.pipelineId' });
  });

  it('a body that is not application/json is 415; an unknown route 404; a wrong method 405', async () => {
    const { request } = await startTestService();
    const text = await request('POST', '/v1/provide', {
      body: '{"pipelineId":"support"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect(text.json.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    expect((await request('GET', '/v1/nothing')).json.error.code).toBe('UNKNOWN_ROUTE');
    const wrongMethod = await request('GET', '/v1/provide');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.json.error).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
  });

  it('a body over the limit is 413 BODY_TOO_LARGE: declared, refused before it is read; chunked, cut while it streams', async () => {
    const { request, url } = await startTestService({ config: { service: { maxBodyBytes: 1024 } } });
    const declared = await request('POST', '/v1/provide', {
      body: { pipelineId: 'support', message: { text: 'x'.repeat(2000) } },
    });
    expect(declared.status).toBe(413);
    expectConforms('provide', 413, declared.json);
    expect(declared.json.error).toMatchObject({ code: 'BODY_TOO_LARGE', limit: 1024 });

    // Chunked, no length declared: the answer comes once 1 KiB has passed, while the client is still sending.
    const chunk = (data: string) => `${data.length.toString(16)}\r\n${data}\r\n`;
    const reply = await rawExchange(url, [
      {
        data: `POST /v1/provide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunk(`{"pipelineId":"support","message":{"text":"${'x'.repeat(600)}`)}`,
      },
      { data: chunk('y'.repeat(600)), delayMs: 50 },
      // Never sent by a well-behaved client: the server has answered and closed before this.
      { data: chunk('z'.repeat(600)), delayMs: 1_500 },
    ]);
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
    expect(reply).toContain('"code":"BODY_TOO_LARGE"');
    expect(reply.toLowerCase()).toContain('connection: close');
  });

  it('a client that trickles its body is cut with 408 BODY_TIMEOUT at the body deadline', async () => {
    const { url } = await startTestService({ config: { service: { bodyTimeoutMs: 300 } } });
    const started = Date.now();
    const reply = await rawExchange(url, [
      {
        data: 'POST /v1/provide HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"pipe',
      },
      { data: 'line', delayMs: 200 },
      { data: 'Id"', delayMs: 200 },
    ]);
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(reply).toContain('"code":"BODY_TIMEOUT"');
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a client that never finishes its headers is cut at headersTimeoutMs', async () => {
    const { url } = await startTestService({ config: { service: { headersTimeoutMs: 400 } } });
    const started = Date.now();
    const reply = await rawExchange(url, [
      { data: 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n' },
      { data: 'X-Slow: 1\r\n', delayMs: 300 },
    ]);
    expect(reply).toMatch(/^HTTP\/1\.1 408 /);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('a handler that takes longer than requestTimeoutMs is answered 504 REQUEST_TIMEOUT', async () => {
    const { request } = await startTestService({
      config: { service: { requestTimeoutMs: 300 }, turnDeadlineMs: 10_000, readTimeoutMs: 10_000 },
      fixture: { faults: { hangUris: ['gitnexus://repos'] } },
    });
    const response = await request('POST', '/v1/servers/gitnexus/read', {
      body: { pipelineId: 'support', uri: 'gitnexus://repos' },
    });
    expect(response.status).toBe(504);
    expect(response.json.error).toMatchObject({ code: 'REQUEST_TIMEOUT', limit: 300 });
  });

  it('a client that goes away mid-turn stops its turn: the request leaves the in-flight count at once, not at the read timeout', async () => {
    const { service, url } = await startTestService({
      config: { turnDeadlineMs: 20_000, readTimeoutMs: 20_000 },
      fixture: { faults: { hangUris: ['gitnexus://setup'] } },
    });
    const gone = fetch(`${url}/v1/provide`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        pipelineId: 'support',
        message: { attachments: [{ server: 'gitnexus', uri: 'gitnexus://setup' }] },
      }),
      signal: AbortSignal.timeout(300),
    });
    await expect(gone).rejects.toThrow();
    expect(service.runtime.state.metrics.inFlight).toBe(1);
    const started = Date.now();
    while (service.runtime.state.metrics.inFlight > 0 && Date.now() - started < 5_000) {
      await new Promise((done) => setTimeout(done, 20));
    }
    expect(service.runtime.state.metrics.inFlight).toBe(0);
  });
});
