import { describe, expect, it } from 'vitest';
import { expectConforms } from './support/contract.js';
import { startTestService } from './support/start-test-service.js';

describe('pins by scope', () => {
  it('adds, lists, updates and removes pins of a pipeline and of a conversation, and turns read them', async () => {
    const { request } = await startTestService();
    const added = await request('POST', '/v1/pins', {
      body: {
        scope: { conversationId: 'c-42' },
        server: 'gitnexus',
        template: 'gitnexus://repo/{name}/context',
        arguments: { name: 'acme-shop' },
      },
    });
    expect(added.status).toBe(200);
    expectConforms('addPin', 200, added.json);
    const { pin } = added.json;
    expect(pin).toMatchObject({
      scope: { conversationId: 'c-42' },
      template: 'gitnexus://repo/{name}/context',
    });

    const listed = await request('GET', '/v1/pins?conversationId=c-42');
    expectConforms('listPins', 200, listed.json);
    expect(listed.json.pins.map((item: { id: string }) => item.id)).toEqual([pin.id]);
    expect((await request('GET', '/v1/pins?pipelineId=support')).json.pins).toEqual([]);

    const updated = await request('PATCH', `/v1/pins/${pin.id}`, {
      body: { scope: { conversationId: 'c-42' }, maxTokens: 400, priority: 5 },
    });
    expect(updated.status).toBe(200);
    expectConforms('updatePin', 200, updated.json);
    expect(updated.json.pin).toMatchObject({ id: pin.id, maxTokens: 400, priority: 5, addedAt: pin.addedAt });
    const cleared = await request('PATCH', `/v1/pins/${pin.id}`, {
      body: { scope: { conversationId: 'c-42' }, maxTokens: null },
    });
    expect(cleared.json.pin.maxTokens).toBeUndefined();
    expect(cleared.json.pin.priority).toBe(5);

    const turn = await request('POST', '/v1/provide', {
      body: { pipelineId: 'support', conversationId: 'c-42' },
    });
    expect(
      turn.json.trace.entries.map((entry: { attachmentId: string; uri: string }) => [
        entry.attachmentId,
        entry.uri,
      ]),
    ).toEqual([[pin.id, 'gitnexus://repo/acme-shop/context']]);

    const removed = await request('DELETE', `/v1/pins/${pin.id}?conversationId=c-42`);
    expect(removed.status).toBe(200);
    expectConforms('removePin', 200, removed.json);
    expect(removed.json).toEqual({ removed: true, id: pin.id });
    expect((await request('GET', '/v1/pins?conversationId=c-42')).json.pins).toEqual([]);
  });

  it('finds a pin only in the scope named: another scope answers 404 PIN_NOT_FOUND and the pin stays', async () => {
    const { request } = await startTestService();
    const { json } = await request('POST', '/v1/pins', {
      body: { scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' },
    });
    const elsewhere = await request('DELETE', `/v1/pins/${json.pin.id}?pipelineId=billing`);
    expect(elsewhere.status).toBe(404);
    expectConforms('removePin', 404, elsewhere.json);
    expect(elsewhere.json.error).toMatchObject({ code: 'PIN_NOT_FOUND', field: 'id', value: json.pin.id });
    expect((await request('GET', '/v1/pins?pipelineId=support')).json.pins).toHaveLength(1);
  });

  it('refuses a scope with both or neither of pipelineId and conversationId, and a pin with both uri and template', async () => {
    const { request } = await startTestService();
    const both = await request('GET', '/v1/pins?pipelineId=support&conversationId=c-1');
    expect(both.status).toBe(400);
    expect(both.json.error).toMatchObject({ code: 'INVALID_REQUEST', field: 'query.pipelineId' });
    const neither = await request('GET', '/v1/pins');
    expect(neither.status).toBe(400);
    const twoTargets = await request('POST', '/v1/pins', {
      body: {
        scope: { pipelineId: 'support' },
        server: 'gitnexus',
        uri: 'gitnexus://repos',
        template: 'gitnexus://repo/{name}/context',
      },
    });
    expect(twoTargets.status).toBe(400);
    expect(twoTargets.json.error.message).toContain('exactly one of uri or template');
  });

  it("passes the store's own refusals through as 400 with their code (a maxTokens below the smallest useful cut)", async () => {
    const { request } = await startTestService();
    const response = await request('POST', '/v1/pins', {
      body: { scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos', maxTokens: 1 },
    });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe('INVALID_ATTACHMENT');
    expect(response.json.error.limit).toBeGreaterThan(1);
  });
});

describe('servers, listings, prompts and completion through the policy', () => {
  it('lists the servers the pipeline is bound to with their status, and their resources and templates', async () => {
    const { request } = await startTestService();
    const servers = await request('GET', '/v1/servers?pipelineId=support');
    expect(servers.status).toBe(200);
    expectConforms('listServers', 200, servers.json);
    // `other` is configured but not bound to `support`: not listed.
    expect(servers.json.servers.map((status: { server: string }) => status.server)).toEqual(['gitnexus']);

    const resources = await request('GET', '/v1/servers/gitnexus/resources?pipelineId=support&all=true');
    expect(resources.status).toBe(200);
    expectConforms('listResources', 200, resources.json);
    expect(resources.json.resources.map((resource: { uri: string }) => resource.uri)).toContain(
      'gitnexus://repos',
    );

    const templates = await request('GET', '/v1/servers/gitnexus/templates?pipelineId=support');
    expectConforms('listTemplates', 200, templates.json);
    expect(
      templates.json.resourceTemplates.map((template: { uriTemplate: string }) => template.uriTemplate),
    ).toContain('gitnexus://repo/{name}/context');

    const read = await request('POST', '/v1/servers/gitnexus/read', {
      body: { pipelineId: 'support', uri: 'gitnexus://repos' },
    });
    expect(read.status).toBe(200);
    expectConforms('readResource', 200, read.json);
    expect(read.json.contents[0]).toMatchObject({ uri: 'gitnexus://repos', mimeType: 'text/yaml' });
  });

  it('denies a server the pipeline is not bound to with 403 POLICY_DENIED, before anything is sent', async () => {
    const { request, fixture } = await startTestService();
    const reads = fixture.reads.length;
    const listing = await request('GET', '/v1/servers/other/resources?pipelineId=support');
    expect(listing.status).toBe(403);
    expectConforms('listResources', 403, listing.json);
    expect(listing.json.error.code).toBe('POLICY_DENIED');
    const read = await request('POST', '/v1/servers/other/read', {
      body: { pipelineId: 'support', uri: 'gitnexus://repos' },
    });
    expect(read.status).toBe(403);
    expect(fixture.reads.length).toBe(reads);
  });

  it('lists prompts and gets one with arguments; a prompt the binding refuses is 403', async () => {
    const { request } = await startTestService({
      config: { bindings: { support: { servers: ['gitnexus'], prompts: ['detect_*'] } } },
    });
    const prompts = await request('GET', '/v1/servers/gitnexus/prompts?pipelineId=support');
    expect(prompts.status).toBe(200);
    expectConforms('listPrompts', 200, prompts.json);
    expect(prompts.json.prompts.map((prompt: { name: string }) => prompt.name)).toEqual(['detect_impact']);

    const prompt = await request('POST', '/v1/servers/gitnexus/prompts/detect_impact', {
      body: { pipelineId: 'support', arguments: { scope: 'all' } },
    });
    expect(prompt.status).toBe(200);
    expectConforms('getPrompt', 200, prompt.json);
    expect(prompt.json.messages[0].content.text).toContain('all');

    const refused = await request('POST', '/v1/servers/gitnexus/prompts/generate_map', {
      body: { pipelineId: 'support' },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('POLICY_DENIED');
  });

  it('answers completion for a server without the completions capability 422 CAPABILITY_MISSING', async () => {
    const { request } = await startTestService();
    const response = await request('POST', '/v1/servers/gitnexus/complete', {
      body: { pipelineId: 'support', prompt: 'detect_impact', argument: 'scope', value: 'a' },
    });
    expect(response.status).toBe(422);
    expectConforms('complete', 422, response.json);
    expect(response.json.error.code).toBe('CAPABILITY_MISSING');
  });
});
