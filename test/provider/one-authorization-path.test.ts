import { describe, expect, it, onTestFinished } from 'vitest';
import { startGitNexusFixture } from '../../fixtures/index.js';
import type { AttachmentStore } from '../../src/attachments/attachment-store.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { MemoryAuditSink } from '../../src/audit/memory-audit-sink.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { runPromptCommand } from '../../src/prompts/run-prompt-command.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { createExplorationTools } from '../../src/tools/create-exploration-tools.js';
import type { Attachment } from '../../src/types.js';
import { sharedTokenizer, startProviderHarness, type TransportKind } from '../support/provider-harness.js';
import { RecordingPolicy } from '../support/recording-policy.js';

const onlyRepos = {
  bindings: { support: { servers: [{ name: 'gitnexus', resources: ['gitnexus://repos'] }] } },
};

describe.each<TransportKind>(['memory', 'http'])('one authorization path over %s', (transport) => {
  it('a provider turn audits each denied attachment as the pipeline, and sends nothing for it', async () => {
    const audit = new MemoryAuditSink();
    const { attachments, provider, servers, fixture } = await startProviderHarness(transport, {
      registry: { audit },
      policy: onlyRepos,
      provider: { serverInstructions: false, cache: false },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://setup' });

    const { trace } = await provider.provide({
      pipelineId: 'support',
      message: { attachments: [{ server: 'gitnexus', uri: 'gitnexus://repo/acme-shop/context' }] },
    });
    await servers.flushAudit();

    expect(trace.entries.map((entry) => [entry.uri, entry.status])).toEqual([
      ['gitnexus://repo/acme-shop/context', 'denied'],
      ['gitnexus://repos', 'injected'],
      ['gitnexus://setup', 'denied'],
    ]);
    expect(audit.records.filter((record) => record.status === 'denied')).toEqual([
      expect.objectContaining({
        actor: { kind: 'pipeline', pipelineId: 'support' },
        server: 'gitnexus',
        operation: 'resources/read',
        uri: 'gitnexus://repo/acme-shop/context',
        status: 'denied',
        errorCode: 'POLICY_DENIED',
      }),
      expect.objectContaining({
        actor: { kind: 'pipeline', pipelineId: 'support' },
        operation: 'resources/read',
        uri: 'gitnexus://setup',
        status: 'denied',
        errorCode: 'POLICY_DENIED',
      }),
    ]);
    expect(fixture.readCount()).toBe(1);
  });

  it('each pin is authorized once per turn, its subscription riding on the same decision', async () => {
    const fixture = await startGitNexusFixture({ transport });
    const servers = new McpServerRegistry({ mcpServers: { gitnexus: fixture.serverConfig } });
    const attachments = new MemoryAttachmentStore();
    const policy = new RecordingPolicy({ bindings: { support: { servers: ['gitnexus'] } } });
    const provider = new ResourceContextProvider({
      servers,
      attachments,
      policy,
      tokenizer: sharedTokenizer,
      budget: { maxTokens: 4000 },
      serverInstructions: false,
    });
    onTestFinished(async () => {
      provider.dispose();
      await servers.close();
      await fixture.close();
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await attachments.pin({
      scope: { conversationId: 'c-1' },
      server: 'gitnexus',
      template: 'gitnexus://repo/{name}/context',
      arguments: { name: 'acme-shop' },
    });

    await provider.provide({ pipelineId: 'support', conversationId: 'c-1' });

    const reads = policy.requests.filter((request) => request.operation === 'read');
    expect(reads.map((request) => request.uri).sort()).toEqual([
      'gitnexus://repo/acme-shop/context',
      'gitnexus://repos',
    ]);
  });

  it('exploration tools and prompt commands are audited through the same path when denied', async () => {
    const audit = new MemoryAuditSink();
    const { servers, policy } = await startProviderHarness(transport, {
      registry: { audit },
      policy: onlyRepos,
    });
    const tools = createExplorationTools({
      servers,
      policy,
      pipelineId: 'support',
      tokenizer: sharedTokenizer,
      maxTokens: 500,
    });
    const read = await tools.execute('read_mcp_resource', { server: 'gitnexus', uri: 'gitnexus://setup' });
    expect(read.isError).toBe(true);
    await expect(
      runPromptCommand(
        policy.bind(servers, { pipelineId: 'other' }),
        '/mcp__gitnexus__detect_impact scope=all',
      ),
    ).rejects.toMatchObject({ code: 'POLICY_DENIED' });
    await servers.flushAudit();

    expect(audit.records).toEqual([
      expect.objectContaining({ operation: 'resources/read', uri: 'gitnexus://setup', status: 'denied' }),
      expect.objectContaining({ operation: 'prompts/get', prompt: 'detect_impact', status: 'denied' }),
    ]);
  });
});

describe('a stored pin that does not resolve', () => {
  it('is an error in the trace from a custom store: never authorized, read or subscribed', async () => {
    const fixture = await startGitNexusFixture({ transport: 'memory', subscribe: true });
    const servers = new McpServerRegistry({ mcpServers: { gitnexus: fixture.serverConfig } });
    const policy = new RecordingPolicy({ bindings: { support: { servers: ['gitnexus'] } } });
    // The built-in stores refuse such a pin when it is pinned; a store of the host's own may
    // still hand one out.
    const pins: Attachment[] = [
      {
        id: 'pin-broken',
        addedAt: '2026-01-01T00:00:00.000Z',
        scope: { pipelineId: 'support' },
        server: 'gitnexus',
        uri: 'not a uri',
      },
      {
        id: 'pin-repos',
        addedAt: '2026-01-01T00:00:01.000Z',
        scope: { pipelineId: 'support' },
        server: 'gitnexus',
        uri: 'gitnexus://repos',
      },
    ];
    const attachments: AttachmentStore = {
      pin: () => Promise.reject(new Error('this store is read-only')),
      unpin: async () => false,
      list: async (scope) => ('pipelineId' in scope && scope.pipelineId === 'support' ? pins : []),
    };
    const provider = new ResourceContextProvider({
      servers,
      attachments,
      policy,
      tokenizer: sharedTokenizer,
      budget: { maxTokens: 4000 },
    });
    onTestFinished(async () => {
      provider.dispose();
      await servers.close();
      await fixture.close();
    });

    const { trace } = await provider.provide({ pipelineId: 'support' });
    await provider.subscriptionsSettled();

    expect(trace.entries.map((entry) => [entry.uri, entry.status])).toEqual([
      ['gitnexus://repos', 'injected'],
      ['not a uri', 'error'],
    ]);
    expect(trace.entries[1]).toMatchObject({
      scope: 'pipeline',
      attachmentId: 'pin-broken',
      server: 'gitnexus',
      error: { code: 'INVALID_URI', message: '"not a uri" is not a URI (it needs a scheme and no spaces)' },
      cache: 'bypass',
      durationMs: 0,
      tokens: 0,
      bytes: 0,
    });
    const reads = policy.requests.filter((request) => request.operation === 'read');
    expect(reads.map((request) => request.uri)).toEqual(['gitnexus://repos']);
    expect(fixture.readCount()).toBe(1);
    expect(fixture.readCount('gitnexus://repos')).toBe(1);
    expect(provider.subscriptions).toEqual([{ server: 'gitnexus', uri: 'gitnexus://repos' }]);
  });
});
