import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListResourcesRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { makeText } from './bulk-server.js';

export interface BulkHttpServer {
  readonly url: string;
  readonly uris: readonly string[];
  /** resources/read requests answered so far. */
  reads(): number;
  close(): Promise<void>;
}

/**
 * The bulk server's resources (`count` × about `bytes`, the same deterministic text) over
 * Streamable HTTP on 127.0.0.1 (stateless: one SDK server per request), for benchmarks that
 * measure what a real transport adds.
 */
export async function startBulkHttpServer(
  count: number,
  bytes: number,
  options: { generateOnRead?: boolean } = {},
): Promise<BulkHttpServer> {
  const uris = Array.from({ length: count }, (_, index) => `bulk://doc/${index}`);
  // Generating on read keeps the server from holding every body (many distinct resources).
  const bodies = options.generateOnRead
    ? undefined
    : new Map(uris.map((uri, index) => [uri, makeText(bytes, index)]));
  const bodyOf = (uri: string) =>
    bodies?.get(uri) ?? makeText(bytes, Number(uri.slice(uri.lastIndexOf('/') + 1)));
  let reads = 0;
  const httpServer = createServer((request, response) => {
    (async () => {
      if (request.method !== 'POST') {
        response.writeHead(405).end();
        return;
      }
      const server = new Server({ name: 'bulk', version: '1.0.0' }, { capabilities: { resources: {} } });
      server.setRequestHandler(ListResourcesRequestSchema, async () => ({
        resources: uris.map((uri) => ({ uri, name: uri, mimeType: 'text/plain' })),
      }));
      server.setRequestHandler(ReadResourceRequestSchema, async (read) => {
        reads++;
        return {
          contents: [{ uri: read.params.uri, mimeType: 'text/plain', text: bodyOf(read.params.uri) }],
        };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      response.on('close', () => void server.close());
      await server.connect(transport);
      await transport.handleRequest(request, response, await readJson(request));
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    uris,
    reads: () => reads,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
