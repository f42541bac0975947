import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListResourcesRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';

export interface StatelessResourceHttpServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Text resources over Streamable HTTP on 127.0.0.1, stateless (one SDK server per request):
 * `uris` listed, each read answered with `bodyOf(uri)`. The one transport under the benchmarks'
 * HTTP servers (bulk, steady chat), which differ only in their resources.
 */
export async function startStatelessResourceHttpServer(
  name: string,
  uris: readonly string[],
  bodyOf: (uri: string) => string,
): Promise<StatelessResourceHttpServer> {
  // One validator for every request's server: each SDK Server otherwise builds its own Ajv
  // instance, about 1 ms of the benchmark process's CPU per request, billed to the turn measured.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  const httpServer = createServer((request, response) => {
    (async () => {
      if (request.method !== 'POST') {
        response.writeHead(405).end();
        return;
      }
      const server = new Server(
        { name, version: '1.0.0' },
        { capabilities: { resources: {} }, jsonSchemaValidator },
      );
      server.setRequestHandler(ListResourcesRequestSchema, async () => ({
        resources: uris.map((uri) => ({ uri, name: uri, mimeType: 'text/plain' })),
      }));
      server.setRequestHandler(ReadResourceRequestSchema, async (read) => ({
        contents: [{ uri: read.params.uri, mimeType: 'text/plain', text: bodyOf(read.params.uri) }],
      }));
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
