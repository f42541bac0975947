import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListResourcesRequestSchema, ReadResourceRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { makeText } from './bulk-server.js';

export interface SteadyChatServer {
  readonly url: string;
  /** The pipeline's pins. */
  readonly pins: readonly string[];
  /** A conversation's notes. */
  notes(conversation: number): string[];
  /** A message attachment no turn has read before. */
  attachment(key: string): string;
  close(): Promise<void>;
}

/**
 * A host's steady chat over Streamable HTTP on 127.0.0.1 (stateless: one SDK server per request):
 * `pins` pipeline pins of `pinBytes`, `notes` conversation notes of `noteBytes` each, and a new
 * message attachment of `attachmentBytes` for every turn, each body generated from its URI
 * (deterministic, the bulk server's prose and code).
 */
export async function startSteadyChatServer(sizes: {
  pins: number;
  pinBytes: number;
  notes: number;
  noteBytes: number;
  attachmentBytes: number;
}): Promise<SteadyChatServer> {
  const pins = Array.from({ length: sizes.pins }, (_, index) => `chat://pin/${index}`);
  const pinBodies = new Map(pins.map((uri, index) => [uri, makeText(sizes.pinBytes, index)]));
  const bodyOf = (uri: string): string => {
    const pinned = pinBodies.get(uri);
    if (pinned !== undefined) return pinned;
    const seed = [...uri].reduce((hash, char) => (hash * 31 + (char.codePointAt(0) ?? 0)) % 1_000_003, 7);
    return makeText(uri.startsWith('chat://note/') ? sizes.noteBytes : sizes.attachmentBytes, seed);
  };
  const httpServer = createServer((request, response) => {
    (async () => {
      if (request.method !== 'POST') {
        response.writeHead(405).end();
        return;
      }
      const server = new Server({ name: 'chat', version: '1.0.0' }, { capabilities: { resources: {} } });
      server.setRequestHandler(ListResourcesRequestSchema, async () => ({
        resources: pins.map((uri) => ({ uri, name: uri, mimeType: 'text/plain' })),
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
    pins,
    notes: (conversation) =>
      Array.from({ length: sizes.notes }, (_, index) => `chat://note/${conversation}/${index}`),
    attachment: (key) => `chat://message/${key}`,
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
