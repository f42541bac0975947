import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AttachmentStore } from '../../attachments/attachment-store.js';
import { ContextError } from '../../errors.js';
import type { McpServerRegistry } from '../../mcp/mcp-server-registry.js';
import { parseOptions } from '../../options/parse-options.js';
import type { ResourceContextProvider } from '../../provider/resource-context-provider.js';
import { renderText } from '../../render/render-text.js';
import type { Attachment, ContextBlock, InjectionTrace } from '../../types.js';
import { authorizeRequest } from './authorize-request.js';
import { type InspectorOptions, inspectorOptionsSchema } from './inspector-options.js';
import { inspectorCss, inspectorHtml } from './inspector-page.js';
import { inspectorScript } from './inspector-script.js';
import { TurnLog } from './turn-log.js';

export type { InspectorOptions } from './inspector-options.js';

/** A page for watching turns live, as a `node:http` request handler a host mounts where it likes. */
export interface Inspector {
  /** A `node:http` request listener (also fits `express`/`connect` as a terminal handler). */
  readonly handle: (request: IncomingMessage, response: ServerResponse) => void;
  /** What a request that is not from loopback must carry. */
  readonly token: string;
  /** Stops listening to the provider and the registry and ends every open event stream. */
  close(): void;
}

/** Pins shown at most; a store with more shows the oldest this many. */
const maxPins = 1000;
/** Bytes of a pin request body at most. */
const maxBodyBytes = 16_384;

/**
 * The inspector: servers with state, transport, capabilities and last error; pins by pipeline and
 * conversation; the last turns live (server-sent events) with each entry's fate, tokens, cache and
 * change and a budget bar; a turn's rendered context on click when `content` is on; search by URI.
 * Read-only unless `pinning` is on. Serve it on loopback (`listenInspector` does); any other
 * request needs the token.
 */
export function createInspector(
  provider: ResourceContextProvider,
  registry: McpServerRegistry,
  options: InspectorOptions = {},
): Inspector {
  const parsed = parseOptions(inspectorOptionsSchema, options, 'options');
  const token = parsed.token ?? randomBytes(32).toString('base64url');
  const store: AttachmentStore = parsed.attachments ?? provider.attachments;
  const turns = new TurnLog(parsed.maxTurns);
  const streams = new Set<ServerResponse>();

  const broadcast = (event: string, data: unknown) => {
    const frame = `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    for (const stream of streams) stream.write(frame);
  };
  const onTurn = (trace: InjectionTrace, blocks: readonly ContextBlock[]) => {
    broadcast('turn', turns.add(trace, parsed.content ? renderText(blocks) : undefined));
    broadcast('servers', registry.statuses());
  };
  const onSessionChange = () => broadcast('servers', registry.statuses());
  provider.on('injected', onTurn);
  registry.on('session-opened', onSessionChange);
  registry.on('session-closed', onSessionChange);

  const listPins = async (): Promise<Attachment[]> => {
    if (store.listAll) return store.listAll(maxPins);
    // A store that cannot list everything: the scopes of the turns seen so far.
    const { pipelineIds, conversationIds } = turns.scopes();
    const lists = await Promise.all([
      ...[...pipelineIds].map((pipelineId) => store.list({ pipelineId })),
      ...[...conversationIds].map((conversationId) => store.list({ conversationId })),
    ]);
    return lists.flat().slice(0, maxPins);
  };

  const route = async (request: IncomingMessage, response: ServerResponse, url: URL, path: string) => {
    const method = request.method ?? 'GET';
    if (path === '' || path === 'index.html') return sendStatic(response, method, 'text/html', inspectorHtml);
    if (path === 'inspector.js') return sendStatic(response, method, 'text/javascript', inspectorScript);
    if (path === 'inspector.css') return sendStatic(response, method, 'text/css', inspectorCss);
    if (!path.startsWith('api/')) return sendError(response, 404, 'NOT_FOUND', 'no such page');
    if (!authorizeRequest(request, url, { token, loopbackWithoutToken: parsed.loopbackWithoutToken })) {
      return sendError(response, 401, 'UNAUTHORIZED', 'this inspector needs its token');
    }
    if (path === 'api/state' && method === 'GET') {
      return sendJson(response, 200, {
        options: { content: parsed.content, pinning: parsed.pinning, maxTurns: parsed.maxTurns },
        servers: registry.statuses(),
        pins: await listPins(),
        turns: turns.list(),
      });
    }
    if (path === 'api/events' && method === 'GET') return openStream(request, response, streams);
    const context = /^api\/turns\/([^/]+)\/context$/.exec(path);
    if (context && method === 'GET') {
      if (!parsed.content) {
        return sendError(response, 403, 'CONTENT_VIEWING_OFF', 'the host has not enabled content viewing');
      }
      const text = turns.contextOf(decodeURIComponent(context[1] ?? ''));
      if (text === undefined) return sendError(response, 404, 'NOT_FOUND', 'that turn is no longer kept');
      return sendJson(response, 200, { text });
    }
    if (path === 'api/pins' || path.startsWith('api/pins/')) {
      if (!parsed.pinning) return sendError(response, 403, 'PINNING_OFF', 'the host has not enabled pinning');
      if (!sameOrigin(request))
        return sendError(response, 403, 'CROSS_ORIGIN', 'cross-origin change refused');
      if (path === 'api/pins' && method === 'POST') {
        const pin = await store.pin((await readJsonBody(request)) as Parameters<AttachmentStore['pin']>[0]);
        broadcast('pins', {});
        return sendJson(response, 201, { pin });
      }
      if (method === 'DELETE') {
        const removed = await store.unpin(decodeURIComponent(path.slice('api/pins/'.length)));
        if (removed) broadcast('pins', {});
        return sendJson(response, removed ? 200 : 404, { removed });
      }
    }
    return sendError(response, 404, 'NOT_FOUND', `no ${method} ${path}`);
  };

  return {
    token,
    handle(request, response) {
      const url = new URL(request.url ?? '/', 'http://inspector.invalid');
      if (!url.pathname.startsWith(parsed.basePath)) {
        sendError(response, 404, 'NOT_FOUND', 'outside the inspector');
        return;
      }
      route(request, response, url, url.pathname.slice(parsed.basePath.length)).catch((error: unknown) => {
        if (response.headersSent) {
          response.destroy();
          return;
        }
        const known = ContextError.isInstance(error);
        sendError(
          response,
          known ? 400 : 500,
          known ? error.code : 'INTERNAL_ERROR',
          error instanceof Error ? error.message : String(error),
        );
      });
    },
    close() {
      provider.off('injected', onTurn);
      registry.off('session-opened', onSessionChange);
      registry.off('session-closed', onSessionChange);
      for (const stream of streams) stream.end();
      streams.clear();
    },
  };
}

// --- Internal helpers ---

/** No inline script or style, no framing, no referrer (the token may be in the URL). */
const securityHeaders = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

function sendStatic(response: ServerResponse, method: string, type: string, body: string): void {
  if (method !== 'GET' && method !== 'HEAD') {
    sendError(response, 405, 'METHOD_NOT_ALLOWED', `${method} is not allowed here`);
    return;
  }
  response.writeHead(200, { ...securityHeaders, 'content-type': `${type}; charset=utf-8` });
  response.end(method === 'HEAD' ? undefined : body);
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { ...securityHeaders, 'content-type': 'application/json; charset=utf-8' });
  response.end(JSON.stringify(body));
}

function sendError(response: ServerResponse, status: number, code: string, message: string): void {
  sendJson(response, status, { error: { code, message } });
}

function openStream(request: IncomingMessage, response: ServerResponse, streams: Set<ServerResponse>): void {
  response.writeHead(200, {
    ...securityHeaders,
    'content-type': 'text/event-stream; charset=utf-8',
    connection: 'keep-alive',
  });
  response.write(': live\n\n');
  streams.add(response);
  request.on('close', () => streams.delete(response));
}

/**
 * Changes need a JSON body (a cross-site form cannot send one without a preflight) and, when the
 * browser says where the request comes from, the same origin as the page.
 */
function sameOrigin(request: IncomingMessage): boolean {
  if (request.method === 'POST' && !/^application\/json\b/i.test(request.headers['content-type'] ?? '')) {
    return false;
  }
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > maxBodyBytes) {
      throw new ContextError('LIMIT_EXCEEDED', `a pin request is at most ${maxBodyBytes} bytes`, {
        field: 'body',
      });
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ContextError('INVALID_ATTACHMENT', 'the pin request body is not JSON', { field: 'body' });
  }
}
