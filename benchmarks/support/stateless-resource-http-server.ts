import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListResourcesRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { createMcpHandler, Server as ModernServer } from '@modelcontextprotocol/server';
import { answerWith } from '../../fixtures/modern/answer-with.js';
import type { BenchEra } from './bench-era.js';

export interface StatelessResourceHttpServer {
  readonly url: string;
  /** The MCP revision it speaks: `2025-11-25` (the v1 server), `2026-07-28` (the v2 one, modern-only). */
  readonly era: BenchEra;
  close(): Promise<void>;
}

/**
 * Text resources over Streamable HTTP on 127.0.0.1, stateless (one SDK server per request):
 * `uris` listed, each read answered with `bodyOf(uri)`. The one transport under the benchmarks'
 * HTTP servers (bulk, steady chat), which differ only in their resources; in either era.
 */
export async function startStatelessResourceHttpServer(
  name: string,
  uris: readonly string[],
  bodyOf: (uri: string) => string,
  era: BenchEra = '2025-11-25',
): Promise<StatelessResourceHttpServer> {
  if (era === '2026-07-28') return startModernResourceHttpServer(name, uris, bodyOf);
  // One validator for every request's server: each SDK Server otherwise builds its own Ajv
  // instance, about 1 ms of the benchmark process's CPU per request, billed to the turn measured.
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  return servedOnLoopback(async (request, response) => {
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
  }, '2025-11-25');
}

/** The same resources on the v2 server package, 2026-07-28 only (see BenchEra). */
async function startModernResourceHttpServer(
  name: string,
  uris: readonly string[],
  bodyOf: (uri: string) => string,
): Promise<StatelessResourceHttpServer> {
  const resources = uris.map((uri) => ({ uri, name: uri, mimeType: 'text/plain' }));
  const handler = createMcpHandler(
    () => {
      const server = new ModernServer(
        { name, version: '1.0.0' },
        {
          capabilities: { resources: {} },
          cacheHints: {
            'resources/read': { ttlMs: 300_000, cacheScope: 'public' },
            'resources/list': { ttlMs: 300_000, cacheScope: 'public' },
          },
        },
      );
      server.setRequestHandler('resources/list', async () => ({ resources }));
      server.setRequestHandler('resources/read', async (read) => ({
        contents: [{ uri: read.params.uri, mimeType: 'text/plain', text: bodyOf(read.params.uri) }],
      }));
      return server;
    },
    { legacy: 'reject', keepAliveMs: 0 },
  );
  return servedOnLoopback(
    async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      await answerWith((web) => handler.fetch(web), request, response, Buffer.concat(chunks));
    },
    '2026-07-28',
    () => handler.close(),
  );
}

/** `handle` on 127.0.0.1 at a free port (a failure answers 500), its MCP endpoint's URL, and its close. */
async function servedOnLoopback(
  handle: (request: IncomingMessage, response: ServerResponse) => Promise<void>,
  era: BenchEra,
  closeHandler: () => Promise<void> = async () => {},
): Promise<StatelessResourceHttpServer> {
  const httpServer = createServer((request, response) => {
    handle(request, response).catch(() => {
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
    era,
    close: async () => {
      await closeHandler();
      httpServer.closeAllConnections();
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    },
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
