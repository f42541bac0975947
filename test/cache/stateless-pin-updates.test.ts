import { describe, expect, it, onTestFinished } from 'vitest';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { startScriptedHttp } from '../mcp/support/scripted-server.js';

// Issue 34.3: a stateless 2025 server (Streamable HTTP, no session id) may still announce
// resources.subscribe, but no subscription outlives the request that made it. Pins on it are kept
// fresh by their TTL, no resources/subscribe is sent, and the trace says so.
async function subscribingHost(uri: string) {
  const subscriptions: string[] = [];
  const host = await startScriptedHttp({
    resources: [{ uri, name: uri }],
    contents: { [uri]: [{ uri, mimeType: 'text/plain', text: `body of ${uri}` }] },
    onSubscription: (request) => subscriptions.push(request),
  });
  onTestFinished(() => host.close());
  return { host, subscriptions };
}

describe('pins on a server that cannot push updates', () => {
  it('a stateless Streamable HTTP server gets no resources/subscribe and is traced TTL-only; an SSE session is subscribed', async () => {
    const stateless = await subscribingHost('doc://stateless');
    const sessionful = await subscribingHost('doc://sessionful');
    const servers = new McpServerRegistry({
      reconnect: false,
      mcpServers: {
        stateless: { type: 'http', url: `${stateless.host.origin}/mcp` },
        sessionful: { type: 'sse', url: `${sessionful.host.origin}/sse` },
      },
    });
    onTestFinished(() => servers.close());
    const attachments = new MemoryAttachmentStore();
    const scope = { pipelineId: 'chat' };
    await attachments.pin({ scope, server: 'stateless', uri: 'doc://stateless' });
    await attachments.pin({ scope, server: 'sessionful', uri: 'doc://sessionful' });
    const provider = new ResourceContextProvider({
      servers,
      attachments,
      policy: new AccessPolicy({ bindings: { chat: { servers: ['stateless', 'sessionful'] } } }),
      budget: { maxTokens: 4000 },
    });
    onTestFinished(() => provider.dispose());

    const first = await provider.provide({ pipelineId: 'chat', conversationId: 'c1' });
    await provider.subscriptionsSettled();
    // Both announce resources.subscribe; only the sessionful one is asked.
    expect((await servers.getServerCapabilities('stateless'))?.resources?.subscribe).toBe(true);
    expect(stateless.subscriptions).toEqual([]);
    expect(sessionful.subscriptions).toEqual(['subscribe doc://sessionful']);
    expect(provider.subscriptions).toEqual([{ server: 'sessionful', uri: 'doc://sessionful' }]);
    expect(first.trace.entries.map((entry) => [entry.server, entry.status])).toEqual([
      ['stateless', 'injected'],
      ['sessionful', 'injected'],
    ]);
    expect(first.trace.servers).toEqual([
      { server: 'stateless', protocolVersion: '2025-11-25', pinUpdates: 'ttl' },
      { server: 'sessionful', protocolVersion: '2025-11-25', pinUpdates: 'notifications' },
    ]);
    expect(await servers.pinUpdates('stateless')).toBe('ttl');

    // More turns and conversations: still nothing sent to the stateless server.
    for (const conversationId of ['c1', 'c2', 'c3'])
      await provider.provide({ pipelineId: 'chat', conversationId });
    await provider.subscriptionsSettled();
    expect(stateless.subscriptions).toEqual([]);
    expect(sessionful.subscriptions).toEqual(['subscribe doc://sessionful']);
  });
});
