import { describe, expect, it, onTestFinished } from 'vitest';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import type { ResourceContextProviderOptions } from '../../src/provider/resource-context-provider-options.js';
import { startControlledServer } from '../support/controlled-server.js';
import { sharedTokenizer, startProviderHarness } from '../support/provider-harness.js';

// A 1×1 PNG.
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const pixel = 'img://pixel';

async function start(
  contents: Parameters<typeof startControlledServer>[0],
  provider: Partial<ResourceContextProviderOptions> = {},
) {
  const server = startControlledServer(contents);
  onTestFinished(async () => {
    await server.close();
  });
  const harness = await startProviderHarness('memory', {
    extraServers: { controlled: server.serverConfig },
    provider,
  });
  return { ...harness, server };
}

describe('what a turn asks of the provider', () => {
  it("the turn's model decides whether an image goes to it as a part or is only named", async () => {
    const { provider } = await start({ [pixel]: [{ uri: pixel, mimeType: 'image/png', blob: png }] });
    const turn = { pipelineId: 'support', message: { attachments: [{ server: 'controlled', uri: pixel }] } };
    const resourceOf = (blocks: Awaited<ReturnType<typeof provider.provide>>['blocks']) =>
      blocks.find((block) => block.kind === 'resource');

    const seeing = await provider.provide({ ...turn, model: { images: true } });
    const seeingBlock = resourceOf(seeing.blocks);
    expect(seeingBlock?.kind === 'resource' && seeingBlock.parts).toEqual([
      {
        kind: 'image',
        uri: pixel,
        mimeType: 'image/png',
        data: png,
        bytes: Buffer.from(png, 'base64').length,
      },
    ]);
    expect(seeing.trace.entries.map((entry) => entry.status)).toEqual(['injected']);

    const blind = await provider.provide(turn);
    const blindBlock = resourceOf(blind.blocks);
    expect(blindBlock?.kind === 'resource' && blindBlock.parts).toBeUndefined();
    expect(blindBlock?.text).not.toEqual(seeingBlock?.text);
  });

  it('bypassCache reads again and leaves the cache as it was', async () => {
    const { provider, attachments, server } = await start({
      'doc://a': [{ uri: 'doc://a', mimeType: 'text/plain', text: 'document a' }],
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri: 'doc://a' });
    await provider.provide({ pipelineId: 'support' });
    const bypassed = await provider.provide({ pipelineId: 'support', bypassCache: true });
    const cached = await provider.provide({ pipelineId: 'support', bypassCache: false });
    expect(bypassed.trace.entries.map((entry) => [entry.status, entry.cache])).toEqual([
      ['injected', 'bypass'],
    ]);
    expect(cached.trace.entries.map((entry) => [entry.status, entry.cache])).toEqual([['injected', 'hit']]);
    expect(server.readCount('doc://a')).toBe(2);
  });

  it('many attachments waiting on one turn raise no listener-leak warning', async () => {
    const uris = Array.from({ length: 16 }, (_, index) => `doc://${index}`);
    const { provider, server } = await start(
      Object.fromEntries(uris.map((uri) => [uri, [{ uri, mimeType: 'text/plain', text: `text of ${uri}` }]])),
    );
    // Every read is held until all of them are out, so each waits on the turn's signals at once.
    const held = uris.map((uri) => server.holdNextRead(uri));
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    onTestFinished(() => {
      process.off('warning', onWarning);
    });
    const turn = provider.provide({
      pipelineId: 'support',
      signal: new AbortController().signal,
      message: { attachments: uris.map((uri) => ({ server: 'controlled', uri })) },
    });
    await Promise.all(held.map((hold) => hold.started));
    for (const hold of held) hold.release();
    const { trace } = await turn;
    // A warning is emitted on the next tick of the process: let one pass.
    await new Promise((resolve) => setImmediate(resolve));
    expect(trace.entries.map((entry) => entry.status)).toEqual(uris.map(() => 'injected'));
    expect(warnings.map((warning) => warning.name)).toEqual([]);
  });

  it('options are checked at construction and a turn’s budget override at the turn, each naming its field', async () => {
    const servers = new McpServerRegistry({ mcpServers: {} });
    onTestFinished(() => servers.close());
    const parts = {
      servers,
      attachments: new MemoryAttachmentStore(),
      policy: new AccessPolicy({ bindings: {} }),
      tokenizer: sharedTokenizer,
    };
    expect(() => new ResourceContextProvider({ ...parts, budget: { maxTokens: -1 } })).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTION', field: 'options.budget.maxTokens' }),
    );
    const { provider } = await start({});
    await expect(
      provider.provide({ pipelineId: 'support', budget: { maxTokens: -1 } }),
    ).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      field: 'turn.budget.maxTokens',
    });
  });
});
