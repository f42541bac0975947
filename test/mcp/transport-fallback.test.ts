import { SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { shouldFallBackToSse } from '../../src/mcp/classify-transport-error.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { RpcError } from '../../src/mcp/rpc-error.js';
import { startScriptedHttp } from './support/scripted-server.js';

const resources = [{ uri: 'scripted://one', name: 'one', mimeType: 'text/plain' }];

async function autoRegistry(path: string, requestTimeoutMs?: number) {
  const host = await startScriptedHttp({ resources });
  const servers = new McpServerRegistry({
    mcpServers: { remote: { url: `${host.origin}${path}` } },
    ...(requestTimeoutMs !== undefined && { requestTimeoutMs }),
    reconnect: false,
  });
  onTestFinished(async () => {
    await servers.close();
    await host.close();
  });
  return { host, servers };
}

describe('transport auto', () => {
  it('uses Streamable HTTP when the server speaks it, and never opens an SSE stream', async () => {
    const { host, servers } = await autoRegistry('/mcp');
    const { resources: listed } = await servers.listResources('remote');
    expect(listed.map((resource) => resource.uri)).toEqual(['scripted://one']);
    expect(servers.status('remote')).toMatchObject({
      configuredTransport: 'auto',
      transport: 'http',
      state: 'connected',
    });
    expect(host.requests).not.toContain('GET /messages');
  });

  it.each(['404', '405'])('falls back to SSE when the initialize POST answers %s', async (status) => {
    const { host, servers } = await autoRegistry(`/${status}`);
    const { resources: listed } = await servers.listResources('remote');
    expect(listed.map((resource) => resource.uri)).toEqual(['scripted://one']);
    expect(servers.status('remote')).toMatchObject({ transport: 'sse', state: 'connected' });
    // The server/discover probe, then initialize (the probe's answer is a 2025 server's), then SSE.
    expect(host.requests.slice(0, 3)).toEqual([`POST /${status}`, `POST /${status}`, `GET /${status}`]);
    expect(host.requests).toContain('POST /messages');
  });

  it.each(['401', '403'])('does not fall back after %s: credentials were refused', async (status) => {
    const { host, servers } = await autoRegistry(`/${status}`);
    const error = await servers.listResources('remote').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'CONNECT_FAILED', server: 'remote', value: Number(status) });
    // The probe only: a refusal of credentials says nothing of the era, and initialize would get
    // the same answer (no initialize, no SSE).
    expect(host.requests).toEqual([`POST /${status}`]);
    expect(servers.status('remote')).toMatchObject({ state: 'error', lastError: { code: 'CONNECT_FAILED' } });
  });

  it('falls back to SSE when the initialize POST times out', async () => {
    const { host, servers } = await autoRegistry('/hang', 500);
    const { resources: listed } = await servers.listResources('remote');
    expect(listed).toHaveLength(1);
    expect(servers.status('remote').transport).toBe('sse');
    // The probe timed out: no initialize after it (silence over HTTP is an outage), then SSE.
    expect(host.requests.slice(0, 2)).toEqual(['POST /hang', 'GET /hang']);
  });

  it('does not fall back once initialize was answered, even when what follows gets a 404', async () => {
    const { host, servers } = await autoRegistry('/initialized-404');
    const error = await servers.listResources('remote').catch((caught: unknown) => caught);
    // The v2 transport's error for the refused notification, classified as on any POST.
    expect(error).toMatchObject({ code: 'CONNECT_FAILED', server: 'remote', value: 404 });
    // The probe, initialize (answered), notifications/initialized (404): no SSE stream, no second
    // initialize.
    expect(host.requests).toEqual([
      'POST /initialized-404',
      'POST /initialized-404',
      'POST /initialized-404',
    ]);
    expect(servers.status('remote')).toMatchObject({ state: 'error', lastError: { code: 'CONNECT_FAILED' } });
  });

  it('type "http" never falls back, even after a 404', async () => {
    const host = await startScriptedHttp({ resources });
    const servers = new McpServerRegistry({
      mcpServers: { remote: { type: 'http', url: `${host.origin}/404` } },
      reconnect: false,
    });
    onTestFinished(async () => {
      await servers.close();
      await host.close();
    });
    await expect(servers.listResources('remote')).rejects.toMatchObject({
      code: 'CONNECT_FAILED',
      value: 404,
    });
    expect(host.requests).toEqual(['POST /404', 'POST /404']);
  });
});

describe('shouldFallBackToSse', () => {
  // What the v2 Streamable HTTP transport throws for a POST refused with `status`.
  const httpError = (status: number) =>
    new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Error POSTing to endpoint: refused', {
      status,
      statusText: 'refused',
    });
  const fetchFailure = (code: string) =>
    new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) });

  it('allows 404, 405, network errors and timeouts', () => {
    expect(shouldFallBackToSse(httpError(404))).toBe(true);
    expect(shouldFallBackToSse(httpError(405))).toBe(true);
    expect(shouldFallBackToSse(fetchFailure('ECONNRESET'))).toBe(true);
    expect(shouldFallBackToSse(new RpcError(-32001, 'Request timed out'))).toBe(true);
  });

  it('refuses 401, 403, other statuses and TLS failures', () => {
    expect(shouldFallBackToSse(httpError(401))).toBe(false);
    expect(shouldFallBackToSse(httpError(403))).toBe(false);
    expect(shouldFallBackToSse(httpError(500))).toBe(false);
    expect(shouldFallBackToSse(fetchFailure('DEPTH_ZERO_SELF_SIGNED_CERT'))).toBe(false);
    expect(shouldFallBackToSse(fetchFailure('ERR_TLS_CERT_ALTNAME_INVALID'))).toBe(false);
  });
});
