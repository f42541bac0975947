import type { ContentCacheOptions } from '../../src/cache.js';
import {
  AccessPolicy,
  type AttachmentStore,
  type McpServerConfigInput,
  McpServerRegistry,
  MemoryAttachmentStore,
  ResourceContextProvider,
  type Tokenizer,
} from '../../src/index.js';
import type { Telemetry } from '../../src/opentelemetry.js';

/** A provider over one server named `bulk`, bound to pipeline `bench`, with pins for `uris`. */
export async function createBenchProvider(options: {
  serverConfig: McpServerConfigInput;
  uris: readonly string[];
  tokenizer: Tokenizer;
  maxTokens: number;
  cache: ContentCacheOptions | false;
  /** Spans and metrics (the telemetry-overhead scenario). */
  telemetry?: Telemetry;
  /** `false`: every turn runs every step (see the provider's `keptTurns`). */
  keptTurns?: false;
  /** Where the pins are kept (the bench pins `uris` in it); a memory store by default. */
  attachments?: AttachmentStore;
}) {
  const servers = new McpServerRegistry({
    mcpServers: { bulk: options.serverConfig },
    ...(options.telemetry && { telemetry: options.telemetry }),
  });
  const attachments = options.attachments ?? new MemoryAttachmentStore();
  for (const uri of options.uris)
    await attachments.pin({ scope: { pipelineId: 'bench' }, server: 'bulk', uri });
  const provider = new ResourceContextProvider({
    servers,
    attachments,
    policy: new AccessPolicy({ bindings: { bench: { servers: ['bulk'] } } }),
    tokenizer: options.tokenizer,
    budget: { maxTokens: options.maxTokens },
    cache: options.cache,
    readTimeoutMs: 120_000,
    turnDeadlineMs: 600_000,
    ...(options.telemetry && { telemetry: options.telemetry }),
    ...(options.keptTurns === false && { keptTurns: false }),
  });
  return {
    provider,
    servers,
    close: async () => {
      provider.dispose();
      await servers.close();
    },
  };
}
