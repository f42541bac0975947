import { setTimeout as delay } from 'node:timers/promises';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListResourcesRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { startStatelessServer } from '../../../fixtures/hosted/start-stateless-server.js';
import { makeText } from '../bulk-server.js';

export interface StatelessHttpServer {
  readonly url: string;
  readonly uris: readonly string[];
  /** resources/read requests answered so far, from every replica. */
  reads(): number;
  close(): Promise<void>;
}

/**
 * One MCP server on 127.0.0.1 that every replica process talks to: the fixtures' stateless
 * Streamable HTTP host (a Server per request) over `count` text resources. Each read takes
 * `readDelayMs`, as a real server's work would, so that reads the fleet saves show in the turn
 * latency.
 */
export async function startStatelessHttpServer(
  count: number,
  bytes: number,
  readDelayMs: number,
): Promise<StatelessHttpServer> {
  const uris = Array.from({ length: count }, (_, index) => `bench://doc/${index}`);
  const bodies = new Map(uris.map((uri, index) => [uri, makeText(bytes, index)]));
  let reads = 0;
  const createServer = () => {
    const server = new Server(
      { name: 'replicas-bench', version: '1.0.0' },
      { capabilities: { resources: {} } },
    );
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: uris.map((uri) => ({ uri, name: uri, mimeType: 'text/plain' })),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (read) => {
      reads++;
      await delay(readDelayMs);
      const text = bodies.get(read.params.uri) ?? '';
      return { contents: [{ uri: read.params.uri, mimeType: 'text/plain', text }] };
    });
    return server;
  };
  const host = await startStatelessServer({ createServer });
  return { url: host.url, uris, reads: () => reads, close: () => host.close() };
}
