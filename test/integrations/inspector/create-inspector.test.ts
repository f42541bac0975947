import { describe, expect, it } from 'vitest';
import { ContextError } from '../../../src/errors.js';
import { createInspector } from '../../../src/inspector.js';
import type { InjectionTrace } from '../../../src/types.js';
import { openEventStream, send, startInspectorHarness } from './inspector-http.js';

const turn = {
  pipelineId: 'support',
  conversationId: 'c-42',
  message: { attachments: [{ server: 'gitnexus', uri: 'gitnexus://repo/acme-shop/context' }] },
};

describe('createInspector', () => {
  it('serves servers, pins by scope and past turns as state, and new turns live as server-sent events', async () => {
    const { listening, provider, attachments } = await startInspectorHarness();
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await attachments.pin({ scope: { conversationId: 'c-42' }, server: 'gitnexus', uri: 'gitnexus://setup' });
    await provider.provide({ ...turn, turnId: 'turn-1' });

    const state = JSON.parse((await send(`${listening.url}api/state`)).body);
    expect(state.options).toEqual({ content: false, pinning: false, maxTurns: 50 });
    expect(state.servers).toEqual([
      expect.objectContaining({
        server: 'gitnexus',
        state: 'connected',
        transport: 'http',
        protocolVersion: '2025-11-25',
      }),
    ]);
    expect(state.servers[0].capabilities).toHaveProperty('resources');
    expect(state.pins.map((pin: { scope: unknown; uri: string }) => [pin.scope, pin.uri])).toEqual([
      [{ pipelineId: 'support' }, 'gitnexus://repos'],
      [{ conversationId: 'c-42' }, 'gitnexus://setup'],
    ]);
    expect(state.turns).toHaveLength(1);
    expect(state.turns[0]).toMatchObject({ hasContext: false, trace: { turnId: 'turn-1' } });

    const events = await openEventStream(`${listening.url}api/events`);
    expect(events.status).toBe(200);
    const { trace: live } = await provider.provide({ ...turn, turnId: 'turn-2' });
    const sent = (await events.next('turn')) as { trace: InjectionTrace; hasContext: boolean };
    expect(sent.trace).toEqual(JSON.parse(JSON.stringify(live)));
    expect(sent.trace.entries.map((entry) => [entry.scope, entry.uri, entry.status, entry.cache])).toEqual([
      ['message', 'gitnexus://repo/acme-shop/context', 'injected', 'hit'],
      ['conversation', 'gitnexus://setup', 'injected', 'hit'],
      ['pipeline', 'gitnexus://repos', 'injected', 'hit'],
    ]);
    expect(await events.next('servers')).toEqual([expect.objectContaining({ server: 'gitnexus' })]);
  });

  it('refuses API requests without the token unless they come from loopback naming a loopback host', async () => {
    const { listening, inspector } = await startInspectorHarness();
    const state = `${listening.url}api/state`;
    expect((await send(state)).status).toBe(200);
    expect((await send(state, { headers: { host: `localhost:${listening.port}` } })).status).toBe(200);

    // DNS rebinding: another site's name resolving to 127.0.0.1 still arrives with its own Host.
    const rebound = await send(state, { headers: { host: `attacker.example:${listening.port}` } });
    expect(rebound.status).toBe(401);
    expect(JSON.parse(rebound.body)).toEqual({
      error: { code: 'UNAUTHORIZED', message: 'this inspector needs its token' },
    });
    expect(rebound.body).not.toContain('gitnexus');
    const stream = await send(`${listening.url}api/events`, { headers: { host: 'attacker.example' } });
    expect(stream.status).toBe(401);

    const withBearer = await send(state, {
      headers: { host: 'attacker.example', authorization: `Bearer ${inspector.token}` },
    });
    expect(withBearer.status).toBe(200);
    const withQuery = await send(`${state}?token=${encodeURIComponent(inspector.token)}`, {
      headers: { host: 'attacker.example' },
    });
    expect(withQuery.status).toBe(200);
    const wrong = await send(`${state}?token=${'x'.repeat(inspector.token.length)}`, {
      headers: { host: 'attacker.example' },
    });
    expect(wrong.status).toBe(401);
  });

  it('a loopback request a proxy relays for a remote client needs the token, as a remote one does', async () => {
    const { listening, inspector } = await startInspectorHarness();
    const state = `${listening.url}api/state`;
    const relayed: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.7' },
      { 'x-forwarded-for': '127.0.0.1, 203.0.113.7' },
      { forwarded: 'for=198.51.100.1;proto=https' },
      { forwarded: 'for="[2001:db8::1]:4711"' },
      { forwarded: 'for=unknown' },
      { forwarded: 'proto=https;by=127.0.0.1' },
      { 'x-real-ip': '192.0.2.9' },
      { via: '1.1 proxy.example' },
      { 'x-forwarded-host': 'inspector.example' },
    ];
    for (const headers of relayed) {
      const answer = await send(state, { headers });
      expect(answer.status, JSON.stringify(headers)).toBe(401);
      expect(answer.body).not.toContain('gitnexus');
      const withToken = await send(state, {
        headers: { ...headers, authorization: `Bearer ${inspector.token}` },
      });
      expect(withToken.status, JSON.stringify(headers)).toBe(200);
    }
    // A relay that forwards for a client on loopback itself changes nothing.
    const local: Record<string, string>[] = [
      { 'x-forwarded-for': '127.0.0.1' },
      { forwarded: 'for="[::1]:4711", for=127.0.0.2' },
      { 'x-real-ip': '::ffff:127.0.0.1' },
    ];
    for (const headers of local)
      expect((await send(state, { headers })).status, JSON.stringify(headers)).toBe(200);
  });

  it('with loopbackWithoutToken false, even a loopback request needs the token', async () => {
    const { listening } = await startInspectorHarness({
      token: 'a-token-of-twenty-chars',
      loopbackWithoutToken: false,
    });
    expect((await send(`${listening.url}api/state`)).status).toBe(401);
    const authorized = await send(`${listening.url}api/state`, {
      headers: { authorization: 'Bearer a-token-of-twenty-chars' },
    });
    expect(authorized.status).toBe(200);
    // The page itself holds no data: it loads, and asks for the token through its API calls.
    expect((await send(listening.url)).status).toBe(200);
  });

  it('serves a static page with a CSP that forbids inline script, and never interpolates data into it', async () => {
    const { listening, provider } = await startInspectorHarness();
    await provider.provide({ ...turn, turnId: '<img src=x onerror=alert(1)>' });
    const page = await send(listening.url);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).not.toContain('onerror');
    const script = await send(`${listening.url}inspector.js`);
    expect(script.body).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  });

  it('shows a turn’s rendered context only when the host enables content viewing', async () => {
    const off = await startInspectorHarness();
    await off.provider.provide({ ...turn, turnId: 'turn-off' });
    const refused = await send(`${off.listening.url}api/turns/turn-off/context`);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.code).toBe('CONTENT_VIEWING_OFF');

    const on = await startInspectorHarness({ content: true });
    const { blocks } = await on.provider.provide({ ...turn, turnId: 'turn-on' });
    const answer = await send(`${on.listening.url}api/turns/turn-on/context`);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).text).toBe(blocks.map((block) => block.text).join(''));
    expect(JSON.parse(answer.body).text).toContain('gitnexus://repo/acme-shop/context');
    expect((await send(`${on.listening.url}api/turns/unknown/context`)).status).toBe(404);
  });

  it('keeps only the last maxTurns turns', async () => {
    const { listening, provider } = await startInspectorHarness({ maxTurns: 2 });
    for (const turnId of ['a', 'b', 'c']) await provider.provide({ pipelineId: 'support', turnId });
    const state = JSON.parse((await send(`${listening.url}api/state`)).body);
    expect(state.turns.map((item: { trace: InjectionTrace }) => item.trace.turnId)).toEqual(['b', 'c']);
  });

  it('is read-only by default; with pinning on it pins and unpins same-origin JSON requests only', async () => {
    const readOnly = await startInspectorHarness();
    const pinBody = JSON.stringify({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      uri: 'gitnexus://setup',
    });
    const json = { 'content-type': 'application/json' };
    const refused = await send(`${readOnly.listening.url}api/pins`, {
      method: 'POST',
      headers: json,
      body: pinBody,
    });
    expect(refused.status).toBe(403);
    expect(await readOnly.attachments.list({ pipelineId: 'support' })).toEqual([]);

    const { listening, attachments } = await startInspectorHarness({ pinning: true });
    const pins = `${listening.url}api/pins`;
    const form = await send(pins, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: pinBody,
    });
    expect(form.status).toBe(403);
    const crossOrigin = await send(pins, {
      method: 'POST',
      headers: { ...json, origin: 'http://attacker.example' },
      body: pinBody,
    });
    expect(crossOrigin.status).toBe(403);
    expect(await attachments.list({ pipelineId: 'support' })).toEqual([]);

    const created = await send(pins, {
      method: 'POST',
      headers: { ...json, origin: listening.url.slice(0, -1) },
      body: pinBody,
    });
    expect(created.status).toBe(201);
    const { pin } = JSON.parse(created.body);
    expect(await attachments.list({ pipelineId: 'support' })).toEqual([pin]);

    const invalid = await send(pins, { method: 'POST', headers: json, body: '{"scope":{}}' });
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.body).error.code).toBe('INVALID_ATTACHMENT');

    const removed = await send(`${pins}/${pin.id}`, { method: 'DELETE' });
    expect(JSON.parse(removed.body)).toEqual({ removed: true });
    expect(await attachments.list({ pipelineId: 'support' })).toEqual([]);
  });

  it('shows no URL userinfo: a server configured as http://user:secret@… is redacted in state, events, trace and context', async () => {
    const { listening, provider } = await startInspectorHarness(
      { content: true },
      // Node's fetch refuses a URL with credentials, and quotes the URL in its error.
      {
        extraServers: { hidden: { type: 'http', url: 'http://inspector-user:s3cret-pass@127.0.0.1:9/mcp' } },
      },
    );
    const events = await openEventStream(`${listening.url}api/events`);
    const { trace, blocks } = await provider.provide({
      pipelineId: 'support',
      turnId: 'turn-userinfo',
      message: { attachments: [{ server: 'hidden', uri: 'gitnexus://repos' }] },
    });
    expect(trace.entries[0]?.status).toBe('error');
    expect(trace.entries[0]?.error?.message).toContain('http://[redacted]@127.0.0.1:9/mcp');
    const shown = [
      JSON.stringify(trace),
      JSON.stringify(blocks),
      JSON.stringify(await events.next('turn')),
      JSON.stringify(await events.next('servers')),
      (await send(`${listening.url}api/state`)).body,
      (await send(`${listening.url}api/turns/turn-userinfo/context`)).body,
    ];
    for (const text of shown) {
      expect(text).not.toContain('s3cret-pass');
      expect(text).not.toContain('inspector-user');
    }
    const state = JSON.parse(shown[4] ?? '{}');
    const hidden = state.servers.find((server: { server: string }) => server.server === 'hidden');
    expect(hidden.lastError.message).toContain('http://[redacted]@127.0.0.1:9/mcp');
  });

  it('validates its options once, naming the bad one', async () => {
    const { provider, servers } = await startInspectorHarness();
    const attempt = () => createInspector(provider, servers, { token: 'short' });
    expect(attempt).toThrow(ContextError);
    expect(attempt).toThrow(/options\.token: must be at least 16 characters/);
    expect(() => createInspector(provider, servers, { basePath: 'inspector' })).toThrow(/options\.basePath/);
  });
});
