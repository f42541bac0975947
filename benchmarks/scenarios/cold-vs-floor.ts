import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { get_encoding } from 'tiktoken';
import {
  AccessPolicy,
  createTiktokenTokenizer,
  McpServerRegistry,
  MemoryAttachmentStore,
  ResourceContextProvider,
} from '../../src/index.js';
import { startBulkServer } from '../support/bulk-server.js';
import { withEncoderLoaded } from '../support/context-bench.js';
import { medianMs, round } from '../support/measure.js';
import type { Figures, ReadmeRow } from '../support/scenario.js';

const resources = 20;
const resourceBytes = 64 * 1024;
const maxTokens = 8000;

/**
 * A cold turn against its floor. Cold: a new provider (empty content, derived and listing
 * caches) and a new tokenizer (empty count and piece caches) for every measured run; only the MCP
 * session and the tokenizer's BPE tables, both start-up costs, are already there. Floor: the same reads
 * made with the raw SDK client on the same kind of transport, plus raw tiktoken
 * `encode_ordinary` on just the windows that were injected. `ratio` = cold / floor; target ≤ 1.2
 * (issue 13).
 */
export async function run(options: { quick: boolean }): Promise<Figures> {
  const runs = options.quick ? 3 : 7;
  const server = startBulkServer(resources, resourceBytes);
  const servers = new McpServerRegistry({ mcpServers: { bulk: server.serverConfig } });
  const attachments = new MemoryAttachmentStore();
  for (const uri of server.uris)
    await attachments.pin({ scope: { pipelineId: 'bench' }, server: 'bulk', uri });
  const policy = new AccessPolicy({ bindings: { bench: { servers: ['bulk'] } } });
  const raw = new Client({ name: 'floor', version: '1.0.0' });
  await raw.connect(await server.serverConfig.createTransport());
  await servers.listResources('bulk');
  const encoder = get_encoding('o200k_base');
  let injectedTexts: string[] = [];
  try {
    return await withEncoderLoaded(async () => {
      const coldMs = await medianMs(async () => {
        const tokenizer = createTiktokenTokenizer();
        const provider = new ResourceContextProvider({
          servers,
          attachments,
          policy,
          tokenizer,
          budget: { maxTokens },
        });
        try {
          const { blocks } = await provider.provide({ pipelineId: 'bench' });
          injectedTexts = blocks.map((block) => block.text);
        } finally {
          provider.dispose();
          tokenizer.dispose();
        }
      }, runs);
      const floorMs = await medianMs(async () => {
        await Promise.all(server.uris.map((uri) => raw.readResource({ uri })));
        for (const text of injectedTexts) encoder.encode_ordinary(text);
      }, runs);
      const ratio = coldMs / floorMs;
      return {
        ratio: round(ratio, 2),
        target: '<= 1.2',
        met: ratio <= 1.2,
        coldMs: round(coldMs, 1),
        floorMs: round(floorMs, 1),
        resources,
        resourceBytes,
        maxTokens,
      };
    });
  } finally {
    encoder.free();
    await raw.close();
    await servers.close();
  }
}

export const readme: ReadmeRow = {
  what: 'cold turn (new provider and tokenizer: every cache empty) vs raw SDK reads plus raw `encode_ordinary` on the injected windows, 20 × 64 KB',
  result: (figures) => `**${figures.ratio}×** (${figures.coldMs} ms vs ${figures.floorMs} ms)`,
  target: '≤ 1.2×',
};
