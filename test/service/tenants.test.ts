import { createHash } from 'node:crypto';
import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
import { parseContextConfig } from '../../src/config.js';
import { ContextError } from '../../src/index.js';
import { startService } from '../../src/service/start-service.js';
import { expectConforms } from './support/contract.js';
import { startTestService } from './support/start-test-service.js';

const supportKey = 'support-key-0123456789abcdef';
const billingKey = 'billing-key-0123456789abcdef';

/** Two tenants: one key from the environment for `support`, one as a digest for `billing`. */
function keyedService(audit: { lines: string[] }) {
  return startTestService({
    config: {
      agents: { triage: { servers: ['gitnexus'] } },
      service: {
        tenants: [
          { id: 'support-host', keyEnv: 'SUPPORT_SERVICE_KEY', pipelines: ['support'], agents: ['triage'] },
          {
            id: 'billing-host',
            keySha256: createHash('sha256').update(billingKey).digest('hex'),
            pipelines: ['billing'],
          },
        ],
      },
    },
    environment: { SUPPORT_SERVICE_KEY: supportKey },
    stderr: { write: (line: string) => audit.lines.push(line) > 0 },
  });
}

describe('tenants: service keys and what each may use', () => {
  it('answers a valid key, 401 without one or with a wrong one, 403 for a pipeline the key may not use; every refusal audited', async () => {
    const audit = { lines: [] as string[] };
    const { request } = await keyedService(audit);
    const turn = { pipelineId: 'support' };
    expect((await request('POST', '/v1/provide', { body: turn, key: supportKey })).status).toBe(200);

    const missing = await request('POST', '/v1/provide', { body: turn });
    expect(missing.status).toBe(401);
    expectConforms('provide', 401, missing.json);
    expect(missing.json.error.code).toBe('UNAUTHENTICATED');
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="mcp-context"');

    const wrong = await request('POST', '/v1/provide', { body: turn, key: `${supportKey}x` });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.message).toBe('the service key is not valid');

    const forbidden = await request('POST', '/v1/provide', {
      body: { pipelineId: 'billing' },
      key: supportKey,
    });
    expect(forbidden.status).toBe(403);
    expectConforms('provide', 403, forbidden.json);
    expect(forbidden.json.error).toMatchObject({ code: 'FORBIDDEN', field: 'pipelineId', value: 'billing' });
    expect(
      (await request('POST', '/v1/provide', { body: { pipelineId: 'billing' }, key: billingKey })).status,
    ).toBe(200);

    const agent = await request('POST', '/v1/provide', {
      body: { pipelineId: 'billing', agentId: 'triage' },
      key: billingKey,
    });
    expect(agent.status).toBe(403);
    expect(agent.json.error.field).toBe('agentId');

    const records = audit.lines.map((line) => JSON.parse(line).audit);
    expect(
      records.map((record) => [
        record.errorCode,
        record.actor.tenant,
        record.actor.pipelineId,
        record.operation,
      ]),
    ).toEqual([
      // Refused before the body is read: an unauthenticated client's body is never parsed.
      ['UNAUTHENTICATED', undefined, undefined, 'POST /v1/provide'],
      ['UNAUTHENTICATED', undefined, undefined, 'POST /v1/provide'],
      ['FORBIDDEN', 'support-host', 'billing', 'POST /v1/provide'],
      ['FORBIDDEN', 'billing-host', 'billing', 'POST /v1/provide'],
    ]);
    expect(
      records.every((record) => record.status === 'denied' && record.actor.kind === 'service-client'),
    ).toBe(true);
    expect(records[0].actor.address).toMatch(/127\.0\.0\.1$/);
    // No key, not even a wrong one, is ever written down.
    expect(audit.lines.join('\n')).not.toContain('key-0123456789');
  });

  it("keeps each tenant's conversations apart: the same conversation id is two conversations", async () => {
    const sharedAcross = await startTestService({
      config: {
        service: {
          tenants: [
            { id: 'a', keyEnv: 'KEY_A', pipelines: ['*'] },
            { id: 'b', keyEnv: 'KEY_B', pipelines: ['*'] },
          ],
        },
      },
      environment: { KEY_A: supportKey, KEY_B: billingKey },
    });
    const pin = { scope: { conversationId: 'c-1' }, server: 'gitnexus', uri: 'gitnexus://repos' };
    expect((await sharedAcross.request('POST', '/v1/pins', { body: pin, key: supportKey })).status).toBe(200);
    const mine = await sharedAcross.request('GET', '/v1/pins?conversationId=c-1', { key: supportKey });
    expect(mine.json.pins.map((item: { scope: unknown }) => item.scope)).toEqual([{ conversationId: 'c-1' }]);
    const theirs = await sharedAcross.request('GET', '/v1/pins?conversationId=c-1', { key: billingKey });
    expect(theirs.json.pins).toEqual([]);
    const turn = await sharedAcross.request('POST', '/v1/provide', {
      body: { pipelineId: 'support', conversationId: 'c-1' },
      key: billingKey,
    });
    expect(turn.json.trace.entries).toEqual([]);
    expect(turn.json.trace.conversationId).toBe('c-1');
    const removeTheirs = await sharedAcross.request(
      'DELETE',
      `/v1/pins/${mine.json.pins[0].id}?conversationId=c-1`,
      {
        key: billingKey,
      },
    );
    expect(removeTheirs.status).toBe(404);
  });

  it('without keys answers loopback only, and refuses a request a proxy relayed or one naming another host', async () => {
    const { request, url } = await startTestService();
    expect((await request('GET', '/v1/pins?pipelineId=support')).status).toBe(200);
    const relayed = await request('GET', '/v1/pins?pipelineId=support', {
      headers: { 'x-forwarded-for': '203.0.113.9' },
    });
    expect(relayed.status).toBe(401);
    expect(relayed.json.error.code).toBe('UNAUTHENTICATED');
    // DNS rebinding: a page on another origin whose name now resolves to 127.0.0.1.
    // (fetch will not send another Host: node:http does.)
    const rebound = await new Promise<number>((resolve, reject) => {
      get(`${url}/v1/pins?pipelineId=support`, { headers: { host: 'attacker.example' } }, (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(rebound).toBe(401);
  });

  it('refuses at start to bind a non-loopback address without keys, with a typed error', async () => {
    const config = parseContextConfig({ mcpServers: {}, bindings: {} });
    const error = await startService({ config, host: '0.0.0.0', port: 0 }).catch((caught: unknown) => caught);
    expect(ContextError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'INVALID_OPTION', field: 'host', value: '0.0.0.0' });
  });

  it('refuses at start a key variable that is unset or too short, and a tenant naming an unbound pipeline', async () => {
    const base = { mcpServers: {}, bindings: { support: { servers: [] } } };
    const unset = parseContextConfig({
      ...base,
      service: { tenants: [{ id: 't', keyEnv: 'NOT_SET_ANYWHERE', pipelines: ['support'] }] },
    });
    await expect(startService({ config: unset, port: 0, environment: {} })).rejects.toMatchObject({
      code: 'CREDENTIAL_MISSING',
      field: 'config.service.tenants.0.keyEnv',
    });
    await expect(
      startService({ config: unset, port: 0, environment: { NOT_SET_ANYWHERE: 'short' } }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      limit: 16,
    });
    const typo = parseContextConfig({
      ...base,
      service: { tenants: [{ id: 't', keyEnv: 'K', pipelines: ['suport'] }] },
    });
    const error = await startService({ config: typo, port: 0, environment: { K: supportKey } }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({ code: 'INVALID_OPTION', field: 'config.service.tenants.0.pipelines.0' });
    expect((error as Error).message).toContain('did you mean "support"?');
  });

  it('refuses a tenant with a key in neither or both forms when the config is read', () => {
    expect(() =>
      parseContextConfig({
        mcpServers: {},
        bindings: {},
        service: { tenants: [{ id: 't', pipelines: ['*'] }] },
      }),
    ).toThrow(/config\.service\.tenants\.0\.keyEnv: give exactly one of keyEnv or keySha256/);
    expect(() =>
      parseContextConfig({ mcpServers: {}, bindings: {}, service: { tenants: [], maxBodyByte: 10 } }),
    ).toThrow(/config\.service\.maxBodyByte: unknown key; did you mean "maxBodyBytes"\?/);
  });
});
