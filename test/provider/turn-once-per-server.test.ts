import { describe, expect, it, onTestFinished } from 'vitest';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import { startControlledServer } from '../support/controlled-server.js';
import { sharedTokenizer } from '../support/provider-harness.js';
import { RecordingPolicy } from '../support/recording-policy.js';

const uris = Array.from({ length: 12 }, (_, index) => `doc://${index}`);

/** A provider over a controlled server holding 12 documents, each pinned to the `support` pipeline. */
async function start() {
  const server = startControlledServer(
    Object.fromEntries(uris.map((uri) => [uri, [{ uri, mimeType: 'text/plain', text: `document ${uri}` }]])),
  );
  const servers = new McpServerRegistry({ mcpServers: { controlled: server.serverConfig } });
  const attachments = new MemoryAttachmentStore();
  const policy = new RecordingPolicy({
    bindings: {
      support: { servers: ['controlled'] },
      other: { servers: ['controlled'] },
      third: { servers: ['controlled'] },
    },
  });
  const provider = new ResourceContextProvider({
    servers,
    attachments,
    policy,
    tokenizer: sharedTokenizer,
    budget: { maxTokens: 8000 },
  });
  onTestFinished(async () => {
    provider.dispose();
    await servers.close();
    await server.close();
  });
  for (const uri of uris)
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri });
  return { provider, policy, server };
}

describe('a turn of many attachments on one server', () => {
  it('decides once per server whether the pipeline may list it, not once per attachment', async () => {
    const { provider, policy } = await start();
    const { trace } = await provider.provide({ pipelineId: 'support' });
    expect(trace.entries.map((entry) => entry.status)).toEqual(uris.map(() => 'injected'));
    const lists = policy.requests.filter((request) => request.operation === 'list');
    expect(lists).toEqual([{ pipelineId: 'support', server: 'controlled', operation: 'list' }]);
  });

  it("authorizes a stored pin's read with the same request every turn of the same pipeline, and with its own for another pipeline", async () => {
    const { provider, policy } = await start();
    const reads = () => policy.requests.splice(0).filter((request) => request.operation === 'read');
    // A conversation pin that no pipeline pins too: the same resolved attachment on every turn.
    await provider.attachments.pin({ scope: { conversationId: 'c' }, server: 'controlled', uri: 'doc://0' });
    await provider.provide({ pipelineId: 'other', conversationId: 'c' });
    const [other] = reads();
    await provider.provide({ pipelineId: 'third', conversationId: 'c' });
    const first = reads();
    await provider.provide({ pipelineId: 'third', conversationId: 'c' });
    const again = reads();
    expect(other?.pipelineId).toBe('other');
    expect(first).toEqual([
      {
        pipelineId: 'third',
        agentId: undefined,
        server: 'controlled',
        operation: 'read',
        uri: 'doc://0',
        prompt: undefined,
        tool: undefined,
      },
    ]);
    // The second turn of `third` asks the same of the policy as its first (the request is built
    // again each turn: the memo that kept it did not earn its place, docs/reuse.md).
    expect(again).toEqual(first);
  });

  it('waits on its signal once per attachment without a MaxListenersExceededWarning', async () => {
    const { provider, server } = await start();
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on('warning', onWarning);
    onTestFinished(() => {
      process.off('warning', onWarning);
    });
    // Every read waits at the server: all 12 attachments wait on the turn's signals at once.
    const held = uris.map((uri) => server.holdNextRead(uri));
    const turn = provider.provide({ pipelineId: 'support' });
    await Promise.all(held.map((hold) => hold.started));
    for (const hold of held) hold.release();
    const { trace } = await turn;
    expect(trace.entries.map((entry) => entry.status)).toEqual(uris.map(() => 'injected'));
    // Warnings are emitted in the order they are raised: once this one arrives, any raised
    // during the turn has arrived before it.
    const marker = new Promise<void>((resolve) => {
      process.on('warning', function onMarker(warning) {
        if (warning.name !== 'TurnTestMarker') return;
        process.off('warning', onMarker);
        resolve();
      });
    });
    process.emitWarning('end of the turn', 'TurnTestMarker');
    await marker;
    expect(warnings.filter((name) => name === 'MaxListenersExceededWarning')).toEqual([]);
    expect(warnings.at(-1)).toBe('TurnTestMarker');
  });
});
