import { createServer, type Server as HttpServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  type Prompt,
  ReadResourceRequestSchema,
  type ReadResourceResult,
  type Resource,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/** A small real MCP server whose surface a test scripts: resources, contents, prompts, tools. */
export interface ScriptedServerOptions {
  readonly resources?: readonly Resource[];
  /** Paginate resources/list with pages of this size (cursors are page offsets). */
  readonly pageSize?: number;
  /** Every resources/list page answers the same cursor: a broken server that loops. */
  readonly loopingCursor?: boolean;
  readonly contents?: Readonly<Record<string, ReadResourceResult['contents']>>;
  readonly prompts?: readonly Prompt[];
  /** Called with every URI the server is asked to read. */
  readonly onRead?: (uri: string) => void;
  /** Offer `resources.subscribe`; called with `subscribe <uri>` / `unsubscribe <uri>` for each request. */
  readonly onSubscription?: (request: string) => void;
}

export function createScriptedServer(options: ScriptedServerOptions = {}): Server {
  const server = new Server(
    { name: 'scripted', version: '1.0.0' },
    {
      capabilities: {
        resources: options.onSubscription ? { subscribe: true } : {},
        prompts: {},
        tools: {},
      },
      instructions: 'scripted for tests',
    },
  );
  const { onSubscription } = options;
  if (onSubscription) {
    server.setRequestHandler(SubscribeRequestSchema, (request) => {
      onSubscription(`subscribe ${request.params.uri}`);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
      onSubscription(`unsubscribe ${request.params.uri}`);
      return {};
    });
  }
  const resources = options.resources ?? [];
  server.setRequestHandler(ListResourcesRequestSchema, (request) => {
    if (options.loopingCursor) return { resources: resources.slice(0, 1), nextCursor: 'again' };
    if (options.pageSize === undefined) return { resources: [...resources] };
    const offset = request.params?.cursor === undefined ? 0 : Number(request.params.cursor);
    const end = offset + options.pageSize;
    return {
      resources: resources.slice(offset, end),
      ...(end < resources.length && { nextCursor: String(end) }),
    };
  });
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    options.onRead?.(request.params.uri);
    const contents = options.contents?.[request.params.uri];
    if (!contents) throw new McpError(-32002, 'Resource not found', { uri: request.params.uri });
    return { contents };
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...(options.prompts ?? [])] }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => {
    if (!options.prompts?.some((prompt) => prompt.name === request.params.name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown prompt ${request.params.name}`, {
        name: request.params.name,
      });
    }
    return {
      messages: [
        {
          role: 'user',
          content: { type: 'text', text: `run ${JSON.stringify(request.params.arguments ?? {})}` },
        },
        { role: 'assistant', content: { type: 'text', text: 'ok' } },
      ],
    };
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      { name: 'echo', inputSchema: { type: 'object' } },
      { name: 'delete_everything', inputSchema: { type: 'object' } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [
      { type: 'text', text: `${request.params.name} ${JSON.stringify(request.params.arguments ?? {})}` },
    ],
  }));
  return server;
}

/** A `type: "transport"` server config: one fresh in-process server per session. */
export function scriptedMemoryConfig(
  options: ScriptedServerOptions = {},
  onServer?: (server: Server) => void,
) {
  return {
    type: 'transport' as const,
    createTransport: async () => {
      const server = createScriptedServer(options);
      onServer?.(server);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      return clientSide;
    },
  };
}

export interface ScriptedHttpHost {
  readonly port: number;
  /** Base URL; Streamable HTTP on `/mcp`, and on `/<status>` POSTs answered with that status. */
  readonly origin: string;
  /** `METHOD /path` of every HTTP request, in order. */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

/**
 * Streamable HTTP (stateless) on `/mcp`; the SDK's SSEServerTransport on GET of any path,
 * with messages POSTed to `/messages`; `/404`, `/405`, `/401`, `/403` answer POSTs with that
 * status and `/hang` never answers a POST; `/initialized-404` is `/mcp` whose
 * `notifications/initialized` gets a 404. 127.0.0.1 only.
 */
export async function startScriptedHttp(
  options: ScriptedServerOptions = {},
  port = 0,
): Promise<ScriptedHttpHost> {
  const requests: string[] = [];
  const sseSessions = new Map<string, SSEServerTransport>();
  const httpServer: HttpServer = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    requests.push(`${request.method} ${url.pathname}`);
    void (async () => {
      if (request.method === 'POST' && url.pathname === '/messages') {
        const session = sseSessions.get(url.searchParams.get('sessionId') ?? '');
        if (!session) return void response.writeHead(404).end();
        return session.handlePostMessage(request, response);
      }
      if (request.method === 'GET' && url.pathname !== '/mcp') {
        const transport = new SSEServerTransport('/messages', response);
        sseSessions.set(transport.sessionId, transport);
        transport.onclose = () => sseSessions.delete(transport.sessionId);
        return createScriptedServer(options).connect(transport);
      }
      if (request.method === 'POST' && (url.pathname === '/mcp' || url.pathname === '/initialized-404')) {
        const body = await readJson(request);
        if (
          url.pathname === '/initialized-404' &&
          (body as { method?: unknown }).method === 'notifications/initialized'
        )
          return void response.writeHead(404).end();
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        const server = createScriptedServer(options);
        response.on('close', () => void server.close());
        await server.connect(transport);
        return transport.handleRequest(request, response, body);
      }
      if (request.method === 'POST' && url.pathname === '/hang') return;
      const status = Number(url.pathname.slice(1));
      response.writeHead(Number.isInteger(status) && status >= 400 ? status : 405).end();
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (httpServer.address() as AddressInfo).port;
  return {
    port: bound,
    origin: `http://127.0.0.1:${bound}`,
    requests,
    close: async () => {
      await Promise.allSettled([...sseSessions.values()].map((session) => session.close()));
      await new Promise<void>((resolve) => {
        httpServer.close(() => resolve());
        httpServer.closeAllConnections();
      });
    },
  };
}

// --- Internal helpers ---

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}
