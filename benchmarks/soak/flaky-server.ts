import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListResourcesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { abortableDelay } from '../../fixtures/faults/abortable-delay.js';

/**
 * An in-process MCP server that misbehaves on purpose: every read answers after 0–`maxDelayMs`
 * (some past the provider's per-read timeout), one read in `errorEvery` fails with a JSON-RPC
 * internal error, and `touch()` changes a document and sends `resources/updated` to every
 * subscribed session. `flaky://doc/N` are the documents.
 */
export function startFlakyServer(options: { documents: number; maxDelayMs: number; errorEvery: number }) {
  const generation = new Map<string, number>();
  const sessions = new Set<{ server: Server; subscriptions: Set<string> }>();
  const uris = Array.from({ length: options.documents }, (_, index) => `flaky://doc/${index}`);
  let reads = 0;

  const createSession = () => {
    const session = {
      server: new Server(
        { name: 'flaky', version: '1.0.0' },
        { capabilities: { resources: { subscribe: true, listChanged: true } } },
      ),
      subscriptions: new Set<string>(),
    };
    const { server } = session;
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: uris.map((uri) => ({ uri, name: uri, mimeType: 'text/markdown' })),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
      reads++;
      const { uri } = request.params;
      await abortableDelay(Math.random() * options.maxDelayMs, extra.signal);
      if (reads % options.errorEvery === 0) throw new McpError(-32603, 'flaky: internal error');
      if (!uris.includes(uri)) throw new McpError(-32002, 'Resource not found', { uri });
      const text = `# ${uri} (generation ${generation.get(uri) ?? 0})\n\n${'Lorem ipsum dolor sit amet. '.repeat(40)}`;
      return { contents: [{ uri, mimeType: 'text/markdown', text }] };
    });
    server.setRequestHandler(SubscribeRequestSchema, (request) => {
      session.subscriptions.add(request.params.uri);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
      session.subscriptions.delete(request.params.uri);
      return {};
    });
    server.onclose = () => sessions.delete(session);
    sessions.add(session);
    return server;
  };

  return {
    serverConfig: {
      type: 'transport' as const,
      createTransport: async () => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        await createSession().connect(serverSide);
        return clientSide;
      },
    },
    uris,
    reads: () => reads,
    sessionCount: () => sessions.size,
    /** A new generation of one document, announced to every session subscribed to it. */
    async touch(uri: string): Promise<void> {
      generation.set(uri, (generation.get(uri) ?? 0) + 1);
      for (const session of [...sessions]) {
        if (!session.subscriptions.has(uri)) continue;
        await session.server.sendResourceUpdated({ uri }).catch(() => {
          // The session closed meanwhile: nobody left to tell.
        });
      }
    },
    async close(): Promise<void> {
      await Promise.allSettled([...sessions].map((session) => session.server.close()));
    },
  };
}
