import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createEndpointFetch } from '../../src/mcp/create-endpoint-fetch.js';
import { endpointPolicySchema } from '../../src/mcp/endpoint-policy.js';

/** A server on 127.0.0.1 that logs each path and answers per `routes`. */
async function startLoggingServer(
  routes: Record<string, (origin: string) => [number, Record<string, string>]>,
) {
  const requests: string[] = [];
  let origin = '';
  const server = createServer((request, response) => {
    const path = request.url ?? '/';
    requests.push(path);
    const [status, headers] = routes[path]?.(origin) ?? [200, {}];
    response.writeHead(status, headers).end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { origin, requests };
}

describe('createEndpointFetch', () => {
  it('under strict, a loopback metadata URL is refused before any connection is made', async () => {
    const target = await startLoggingServer({});
    const guarded = createEndpointFetch({
      policy: endpointPolicySchema.parse({ preset: 'strict' }),
      server: 's',
    });
    await expect(guarded(`${target.origin}/.well-known/oauth-protected-resource/mcp`)).rejects.toMatchObject({
      code: 'ENDPOINT_DENIED',
      server: 's',
    });
    expect(target.requests).toEqual([]);
  });

  it('follows a redirect only after checking where it leads: a hop to a denied host is refused', async () => {
    const denied = await startLoggingServer({});
    const deniedPort = new URL(denied.origin).port;
    const allowed = await startLoggingServer({
      '/ok': (origin) => [302, { location: `${origin}/landed` }],
      '/away': () => [302, { location: `http://localhost:${deniedPort}/secret` }],
    });
    const guarded = createEndpointFetch({
      policy: endpointPolicySchema.parse({ denyHosts: ['localhost'] }),
      server: 's',
    });
    const followed = await guarded(`${allowed.origin}/ok`);
    expect(followed.status).toBe(200);
    expect(allowed.requests).toEqual(['/ok', '/landed']);
    await expect(guarded(`${allowed.origin}/away`)).rejects.toMatchObject({ code: 'ENDPOINT_DENIED' });
    expect(denied.requests).toEqual([]);
    // redirect: "manual" hands the redirect back unfollowed, as fetch does.
    expect((await guarded(`${allowed.origin}/away`, { redirect: 'manual' })).status).toBe(302);
  });

  it('a host name is resolved once, checked, and the connection goes to the address checked', async () => {
    const target = await startLoggingServer({});
    const port = new URL(target.origin).port;
    const guarded = createEndpointFetch({
      policy: endpointPolicySchema.parse({ denyHosts: ['203.0.113.0/24'] }),
      server: 's',
    });
    const response = await guarded(`http://localhost:${port}/named`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('ok');
    expect(target.requests).toEqual(['/named']);
  });

  it("100 parallel requests under one long-lived signal (a transport's) carry one listener on it while they run, none once their bodies are read", async () => {
    const target = await startLoggingServer({});
    const transport = new AbortController();
    for (const maxResponseBytes of [undefined, 1024]) {
      const guarded = createEndpointFetch({
        policy: endpointPolicySchema.parse({}),
        server: 's',
        ...(maxResponseBytes !== undefined && { maxResponseBytes }),
      });
      const responses = await Promise.all(
        Array.from({ length: 100 }, (_, index) =>
          guarded(`${target.origin}/${index}`, { signal: transport.signal }),
        ),
      );
      // Headers in, bodies not read yet: closing the transport must still reach them.
      expect(getEventListeners(transport.signal, 'abort')).toHaveLength(1);
      expect(await Promise.all(responses.map((response) => response.text()))).toEqual(
        responses.map(() => 'ok'),
      );
      expect(getEventListeners(transport.signal, 'abort')).toHaveLength(0);
    }
    // A body cancelled unread lets go as well.
    const guarded = createEndpointFetch({ policy: endpointPolicySchema.parse({}), server: 's' });
    await (await guarded(`${target.origin}/cancelled`, { signal: transport.signal })).body?.cancel();
    expect(getEventListeners(transport.signal, 'abort')).toHaveLength(0);
  });

  it('the long-lived signal aborting still ends a body being read (an event stream held open), and leaves nothing on it', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('event: message\ndata: {}\n\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const transport = new AbortController();
    const guarded = createEndpointFetch({
      policy: endpointPolicySchema.parse({}),
      server: 's',
      maxResponseBytes: 4096,
    });
    const response = await guarded(url, { method: 'GET', signal: transport.signal });
    const reader = response.body?.getReader();
    expect((await reader?.read())?.done).toBe(false);
    const rest = reader?.read();
    transport.abort(new Error('transport closed'));
    await expect(rest).rejects.toThrow();
    expect(getEventListeners(transport.signal, 'abort')).toHaveLength(0);
  });
});
