import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListResourcesRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { makeText } from '../bulk-server.js';

export interface StatelessHttpServer {
  readonly url: string;
  readonly uris: readonly string[];
  /** resources/read requests answered so far, from every replica. */
  reads(): number;
  close(): Promise<void>;
}

/**
 * One MCP server on 127.0.0.1 that every replica process talks to (stateless Streamable HTTP:
 * a Server per request). Each read takes `readDelayMs`, as a real server's work would, so that
 * reads the fleet saves show in the turn latency.
 */
export async function startStatelessHttpServer(
  count: number,
  bytes: number,
  readDelayMs: number,
): Promise<StatelessHttpServer> {
  const uris = Array.from({ length: count }, (_, index) => `bench://doc/${index}`);
  const bodies = new Map(uris.map((uri, index) => [uri, makeText(bytes, index)]));
  let reads = 0;
  const httpServer = createServer(async (request, response) => {
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
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    uris,
    reads: () => reads,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      }),
  };
}
