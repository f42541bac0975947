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
});
