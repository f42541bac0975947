import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

export interface BulkServer {
  readonly serverConfig: { type: 'transport'; createTransport: () => Promise<Transport> };
  readonly uris: readonly string[];
  /** resources/read requests answered so far. */
  reads(): number;
  /** Sends `notifications/resources/updated` for `uri` on every session; resolves once sent. */
  notifyUpdated(uri: string): Promise<void>;
}

/**
 * An in-process MCP server with `count` resources of about `bytes` each (varied prose and code,
 * deterministic), for benchmarks that need many or large resources.
 */
export function startBulkServer(
  count: number,
  bytes: number,
  options: { generateOnRead?: boolean } = {},
): BulkServer {
  const uris = Array.from({ length: count }, (_, index) => `bulk://doc/${index}`);
  // Generating on read keeps the server from holding every body (memory benchmarks).
  const bodies = options.generateOnRead
    ? undefined
    : new Map(uris.map((uri, index) => [uri, makeText(bytes, index)]));
  const bodyOf = (uri: string) =>
    bodies?.get(uri) ?? makeText(bytes, Number(uri.slice(uri.lastIndexOf('/') + 1)));
  const servers: Server[] = [];
  let reads = 0;
  return {
    uris,
    reads: () => reads,
    notifyUpdated: async (uri) => {
      await Promise.all(servers.map((server) => server.sendResourceUpdated({ uri })));
    },
    serverConfig: {
      type: 'transport',
      createTransport: async () => {
        const server = new Server(
          { name: 'bulk', version: '1.0.0' },
          { capabilities: { resources: { subscribe: true } } },
        );
        server.setRequestHandler(ListResourcesRequestSchema, async () => ({
          resources: uris.map((uri) => ({ uri, name: uri, mimeType: 'text/plain' })),
        }));
        server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
          reads++;
          const text = bodyOf(request.params.uri);
          return { contents: [{ uri: request.params.uri, mimeType: 'text/plain', text }] };
        });
        server.setRequestHandler(SubscribeRequestSchema, async () => ({}));
        server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));
        const [client, serverSide] = InMemoryTransport.createLinkedPair();
        await server.connect(serverSide);
        servers.push(server);
        return client;
      },
    },
  };
}

/** The words every generated body is made of (a query that should match bodies draws on them). */
export const bodyWords: readonly string[] = [
  'checkout',
  'cart',
  'payment',
  'service',
  'validates',
  'reserves',
  'stock',
  'before',
  'charging',
  'the',
  'customer',
  'order',
  'retries',
  'webhook',
  'idempotent',
  'ledger',
  'refund',
  'invoice',
  'tax',
  'shipping',
];

/** Deterministic text: paragraphs of prose and short code lines, about `bytes` long. */
export function makeText(bytes: number, seed: number): string {
  // 32-bit arithmetic throughout: in doubles, (seed + 1) * 2654435761 * 1103515245 is past 2^53,
  // its low bits are lost, and seeds above a few thousand fell into a few sequences (5,000 note
  // seeds of the steady-chat server gave 89 distinct bodies, 1,000 attachments 14).
  // The high bits: an LCG's low bits repeat with short periods.
  let state = Math.imul(seed + 1, 2654435761) >>> 0;
  const next = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state >>> 8;
  };
  const lines: string[] = [];
  let length = 0;
  for (let line = 0; length < bytes; line++) {
    const text =
      line % 5 === 4
        ? `  const ${bodyWords[next() % bodyWords.length]}${line} = await ${bodyWords[next() % bodyWords.length]}(${next() % 1000});`
        : Array.from({ length: 8 + (next() % 8) }, () => bodyWords[next() % bodyWords.length]).join(' ');
    lines.push(text);
    length += text.length + 1;
  }
  return lines.join('\n').slice(0, bytes);
}
