import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  AccessPolicy,
  createTiktokenTokenizer,
  McpServerRegistry,
  MemoryAttachmentStore,
  ResourceContextProvider,
} from '../../src/index.js';
import { startBulkServer } from '../support/bulk-server.js';
import { medianMs, round } from '../support/measure.js';

const resources = 20;
const resourceBytes = 64 * 1024;
const maxTokens = 8000;

/**
 * A cold turn (empty caches, session already open) against its floor: the same reads made
 * with the raw SDK client on the same kind of transport, plus raw tokenizer time on just the
 * windows that were injected. `ratio` = cold / floor; target ≤ 1.3.
 */
export async function run(options: { quick: boolean }): Promise<Record<string, number | string | boolean>> {
  const runs = options.quick ? 3 : 7;
  const tokenizer = createTiktokenTokenizer();
  const server = startBulkServer(resources, resourceBytes);
  const servers = new McpServerRegistry({ mcpServers: { bulk: server.serverConfig } });
  const attachments = new MemoryAttachmentStore();
  for (const uri of server.uris)
    await attachments.pin({ scope: { pipelineId: 'bench' }, server: 'bulk', uri });
  const policy = new AccessPolicy({ bindings: { bench: { servers: ['bulk'] } } });
  const raw = new Client({ name: 'floor', version: '1.0.0' });
  await raw.connect(await server.serverConfig.createTransport());
  await servers.listResources('bulk');
  let injectedTexts: string[] = [];
  try {
    const coldMs = await medianMs(async () => {
      // A fresh provider per run: empty content and token caches; the registry's session is reused.
      const provider = new ResourceContextProvider({
        servers,
        attachments,
        policy,
        tokenizer,
        budget: { maxTokens },
      });
      const { blocks } = await provider.provide({ pipelineId: 'bench' });
      injectedTexts = blocks.map((block) => block.text);
      provider.dispose();
    }, runs);
    const floorMs = await medianMs(async () => {
      await Promise.all(server.uris.map((uri) => raw.readResource({ uri })));
      for (const text of injectedTexts) await tokenizer.encode(text);
    }, runs);
    const ratio = coldMs / floorMs;
    return {
      ratio: round(ratio, 2),
      target: '<= 1.3',
      met: ratio <= 1.3,
      coldMs: round(coldMs, 1),
      floorMs: round(floorMs, 1),
      resources,
      resourceBytes,
      maxTokens,
    };
  } finally {
    await raw.close();
    await servers.close();
    tokenizer.dispose();
  }
}
