import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startGitNexusFixture } from '../../fixtures/index.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { MemoryOAuthStore } from '../../src/credentials/memory-oauth-store.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { scriptedMemoryConfig } from '../mcp/support/scripted-server.js';
import { sharedTokenizer } from '../support/provider-harness.js';
import { RecordingPolicy } from '../support/recording-policy.js';

const policy = new AccessPolicy({
  bindings: {
    support: { servers: ['gitnexus'] },
    narrow: {
      servers: [{ name: 'gitnexus', resources: ['gitnexus://repo/{name}/context', 'gitnexus://repos'] }],
      prompts: ['detect_*'],
    },
    markdownOnly: { servers: ['gitnexus'], mimeTypes: ['text/markdown'] },
    capped: { servers: ['gitnexus'], maxBytes: 64 },
  },
});

async function gitnexusRegistry() {
  const fixture = await startGitNexusFixture({ transport: 'memory' });
  const servers = new McpServerRegistry({ mcpServers: { gitnexus: fixture.serverConfig }, reconnect: false });
  onTestFinished(async () => {
    await servers.close();
    await fixture.close();
  });
  return { fixture, servers };
}

describe('a pipeline bound through AccessPolicy.bind', () => {
  it('an unbound pipeline can neither list, read, nor get prompts, and nothing reaches the server', async () => {
    const { fixture, servers } = await gitnexusRegistry();
    const ghost = policy.bind(servers, { pipelineId: 'ghost' });
    expect(ghost.serverNames).toEqual([]);
    const denied = { code: 'POLICY_DENIED', server: 'gitnexus' };
    await expect(ghost.listResources('gitnexus')).rejects.toMatchObject(denied);
    await expect(ghost.listResourceTemplates('gitnexus')).rejects.toMatchObject(denied);
    await expect(ghost.readResource('gitnexus', 'gitnexus://repos')).rejects.toMatchObject(denied);
    await expect(ghost.listPrompts('gitnexus')).rejects.toMatchObject(denied);
    await expect(ghost.getPrompt('gitnexus', 'detect_impact')).rejects.toMatchObject(denied);
    await expect(ghost.callTool('gitnexus', 'list_repos')).rejects.toMatchObject(denied);
    expect(fixture.sessionCount()).toBe(0);
  });

  it("statuses() lists the bound servers, a per-user one too (each principal's own is status(name, { principal }))", () => {
    const servers = new McpServerRegistry({
      mcpServers: {
        mine: { type: 'http', url: 'http://127.0.0.1:1/mcp', auth: { type: 'oauth', perUser: true } },
        other: { type: 'http', url: 'http://127.0.0.1:1/other' },
      },
      authorizer: { redirectUrl: 'http://127.0.0.1:1/callback', store: new MemoryOAuthStore() },
      reconnect: false,
    });
    onTestFinished(() => servers.close());
    const bound = new AccessPolicy({ bindings: { notes: { servers: ['mine'] } } }).bind(servers, {
      pipelineId: 'notes',
    });
    expect(bound.statuses().map((status) => [status.server, status.state])).toEqual([['mine', 'idle']]);
    expect(bound.status('mine', { principal: 'ada' })).toMatchObject({ server: 'mine', state: 'idle' });
    expect(() => bound.status('mine')).toThrow(expect.objectContaining({ code: 'PRINCIPAL_REQUIRED' }));
  });

  it('lists only what its URI patterns admit, and denies reads of anything else', async () => {
    const { fixture, servers } = await gitnexusRegistry();
    const narrow = policy.bind(servers, { pipelineId: 'narrow' });
    const { resources } = await narrow.listResources('gitnexus');
    expect(resources.map((resource) => resource.uri)).toEqual(['gitnexus://repos']);
    const { resourceTemplates } = await narrow.listResourceTemplates('gitnexus');
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      'gitnexus://repo/{name}/context',
    ]);
    const read = await narrow.readResource('gitnexus', 'gitnexus://repo/acme-shop/context');
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/yaml' });
    await expect(narrow.readResource('gitnexus', 'gitnexus://setup')).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      value: 'gitnexus://setup',
    });
    expect(fixture.readCount('gitnexus://setup')).toBe(0);
  });

  it('filters prompts and denies the others', async () => {
    const { servers } = await gitnexusRegistry();
    const narrow = policy.bind(servers, { pipelineId: 'narrow' });
    expect((await narrow.listPrompts('gitnexus')).prompts.map((prompt) => prompt.name)).toEqual([
      'detect_impact',
    ]);
    const prompt = await narrow.getPrompt('gitnexus', 'detect_impact', { scope: 'all' });
    expect(prompt.messages[0]?.role).toBe('user');
    await expect(narrow.getPrompt('gitnexus', 'generate_map')).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      value: 'generate_map',
    });
  });

  it('judges media types by what a read returns, not by what the listing declared', async () => {
    const { servers } = await gitnexusRegistry();
    const markdownOnly = policy.bind(servers, { pipelineId: 'markdownOnly' });
    // The listing declares gitnexus://setup as text/markdown, so it is shown ...
    expect((await markdownOnly.listResources('gitnexus')).resources.map((resource) => resource.uri)).toEqual([
      'gitnexus://setup',
    ]);
    // ... but the server answers the read with text/yaml, which the binding refuses.
    await expect(markdownOnly.readResource('gitnexus', 'gitnexus://setup')).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      field: 'mimeType',
      value: 'text/yaml',
    });
  });

  it("caps the bytes a read keeps at the binding's maxBytes, and says so", async () => {
    const { servers } = await gitnexusRegistry();
    const capped = policy.bind(servers, { pipelineId: 'capped' });
    const setup = await capped.readResource('gitnexus', 'gitnexus://setup');
    expect(setup.truncation).toMatchObject({
      maxBytes: 64,
      keptBytes: 64,
      items: [{ index: 0, keptBytes: 64 }],
    });
    expect(Buffer.byteLength((setup.contents[0] as { text: string }).text)).toBe(64);
  });
});

describe('a request that names a principal, given to a bound view', () => {
  it("is decided as the view's own principal: as given when it names the view's, rebuilt when it names another pipeline or agent", async () => {
    const { servers } = await gitnexusRegistry();
    const recording = new RecordingPolicy({
      bindings: {
        support: { servers: ['gitnexus'] },
        narrow: { servers: [{ name: 'gitnexus', resources: ['gitnexus://repos'] }] },
      },
    });
    const view = recording.bind(servers, { pipelineId: 'narrow' });
    const read = { server: 'gitnexus', operation: 'read', uri: 'gitnexus://setup' } as const;

    expect(view.authorize({ ...read, pipelineId: 'support' }, 'resources/read').allowed).toBe(false);
    expect(recording.requests.at(-1)).toMatchObject({ pipelineId: 'narrow', uri: 'gitnexus://setup' });
    expect(
      view.authorize({ ...read, pipelineId: 'narrow', agentId: 'helper' }, 'resources/read').allowed,
    ).toBe(false);
    expect(recording.requests.at(-1)).toMatchObject({ pipelineId: 'narrow', agentId: undefined });
    const own = {
      pipelineId: 'narrow',
      server: 'gitnexus',
      operation: 'read',
      uri: 'gitnexus://repos',
    } as const;
    expect(view.authorize(own, 'resources/read').allowed).toBe(true);
    expect(recording.requests.at(-1)).toBe(own);
  });
});

describe('provide() under the access policy', () => {
  it('an attachment outside the binding is a denied trace entry, and the others are injected', async () => {
    const { fixture, servers } = await gitnexusRegistry();
    const attachments = new MemoryAttachmentStore();
    const provider = new ResourceContextProvider({
      servers,
      attachments,
      policy,
      tokenizer: sharedTokenizer,
      budget: { maxTokens: 8000 },
    });
    onTestFinished(() => provider.dispose());
    const { trace } = await provider.provide({
      pipelineId: 'narrow',
      message: {
        attachments: [
          { server: 'gitnexus', uri: 'gitnexus://repos' },
          { server: 'gitnexus', uri: 'gitnexus://setup' },
        ],
      },
    });
    expect(trace.entries.map((entry) => [entry.uri, entry.status, entry.error?.code])).toEqual([
      ['gitnexus://repos', 'injected', undefined],
      ['gitnexus://setup', 'denied', 'POLICY_DENIED'],
    ]);
    expect(fixture.readCount('gitnexus://setup')).toBe(0);
  });
});

describe('provide() under a binding with media types', () => {
  it('a read whose returned media type the binding refuses is a denied entry, not content', async () => {
    const { servers } = await gitnexusRegistry();
    const provider = new ResourceContextProvider({
      servers,
      attachments: new MemoryAttachmentStore(),
      policy,
      tokenizer: sharedTokenizer,
      budget: { maxTokens: 8000 },
    });
    onTestFinished(() => provider.dispose());
    const { blocks, trace } = await provider.provide({
      pipelineId: 'markdownOnly',
      message: { attachments: [{ server: 'gitnexus', uri: 'gitnexus://setup' }] },
    });
    expect(trace.entries[0]).toMatchObject({ status: 'denied', error: { code: 'POLICY_DENIED' }, tokens: 0 });
    expect(blocks.filter((block) => block.kind === 'resource')).toEqual([]);
  });
});

describe('resource URIs are opaque', () => {
  it('an http:// URI is listed, read and injected through its session, and its listener gets no request', async () => {
    const hits: string[] = [];
    const listener = createServer((request, response) => {
      hits.push(`${request.method} ${request.url}`);
      response.end('leaked');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    onTestFinished(
      () =>
        new Promise<void>((resolve) => {
          listener.close(() => resolve());
          listener.closeAllConnections();
        }),
    );
    const uri = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/internal/secret`;
    const serverReads: string[] = [];
    const servers = new McpServerRegistry({
      mcpServers: {
        vault: scriptedMemoryConfig({
          resources: [{ uri, name: 'secret', mimeType: 'text/plain' }],
          contents: { [uri]: [{ uri, mimeType: 'text/plain', text: 'served by the MCP session' }] },
          onRead: (read) => serverReads.push(read),
        }),
      },
      reconnect: false,
    });
    const provider = new ResourceContextProvider({
      servers,
      attachments: new MemoryAttachmentStore(),
      policy: new AccessPolicy({ bindings: { support: { servers: ['vault'] } } }),
      tokenizer: sharedTokenizer,
      budget: { maxTokens: 4000 },
    });
    onTestFinished(async () => {
      provider.dispose();
      await servers.close();
    });

    expect((await servers.listResources('vault')).resources.map((resource) => resource.uri)).toEqual([uri]);
    expect((await servers.readResource('vault', uri)).contents[0]).toMatchObject({
      text: 'served by the MCP session',
    });
    const { blocks, trace } = await provider.provide({
      pipelineId: 'support',
      message: { attachments: [{ server: 'vault', uri }] },
    });
    expect(trace.entries[0]).toMatchObject({ uri, status: 'injected' });
    expect(blocks.map((block) => block.text).join('')).toContain('served by the MCP session');
    expect(serverReads).toEqual([uri, uri]);
    expect(hits).toEqual([]);
  });
});
