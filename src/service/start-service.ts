import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ContextError } from '../index.js';
import { buildOpenApiDocument } from './build-openapi-document.js';
import { matchRoute } from './match-route.js';
import { parseRequest } from './parse-request.js';
import { readJsonBody } from './read-json-body.js';
import { errorReply, sendJson, sendJsonText } from './send-json.js';
import { serviceRoutes } from './service-routes.js';
import { openServiceRuntime, type ServiceRuntime, type ServiceRuntimeOptions } from './service-runtime.js';
import { isLoopback, type Tenant } from './service-tenants.js';

export interface StartServiceOptions extends Omit<ServiceRuntimeOptions, 'openApiDocument'> {
  /** Default 127.0.0.1. Any other address needs service keys (config service.tenants). */
  readonly host?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
}

export interface RunningService {
  /** `http://127.0.0.1:PORT` (an IPv6 host in brackets). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly runtime: ServiceRuntime;
  /**
   * Drains: stops accepting, answers 503 to new requests on open connections, ends trace
   * streams, waits for in-flight requests (at most `service.drainTimeoutMs`), then closes the
   * sessions, the shared tier and the store. Safe to call twice.
   */
  close(): Promise<void>;
}

/** The /v1 contract's version (OpenAPI `info.version`): changes only with the contract, not the package. */
const contractVersion = '1.0.0';

/** Error codes that are refusals of the caller (audited with the client's address): the library audits POLICY_DENIED itself. */
const refusalCodes = new Set(['UNAUTHENTICATED', 'FORBIDDEN']);
/** Headers a reverse proxy adds: such a request speaks for a client that is not on loopback. */
const forwardingHeaders = ['forwarded', 'x-forwarded-for', 'x-real-ip', 'x-forwarded-host'];

/**
 * `mcp-context serve`: the library over HTTP/JSON (see docs/service.md). Binding anything but
 * loopback without service keys is refused here, before a port is opened.
 */
export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const host = options.host ?? '127.0.0.1';
  const settings = options.config.service;
  const keyed = (settings?.tenants.length ?? 0) > 0;
  if (!keyed && !isLoopback(host)) {
    throw new ContextError(
      'INVALID_OPTION',
      `--host ${host}: a service without keys answers anyone who reaches it; bind a loopback address, or configure service.tenants with keys`,
      { field: 'host', value: host },
    );
  }
  const runtime = await openServiceRuntime({
    ...options,
    openApiDocument: () => buildOpenApiDocument(serviceRoutes, { version: contractVersion }),
  });
  const { state } = runtime;
  const limits = runtime.settings;
  const inFlight = new Set<Promise<void>>();

  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      // Node's own backstop for the whole request; the body deadline below answers first, in JSON.
      requestTimeout: limits.headersTimeoutMs + limits.bodyTimeoutMs + 1_000,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // How often Node checks those timeouts (default 30 s would let a slow client stay that long).
      connectionsCheckingInterval: 500,
    },
    (incoming, response) => {
      const handled = handle(runtime, incoming, response, limits).finally(() => inFlight.delete(handled));
      inFlight.add(handled);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port, address } = server.address() as AddressInfo;
  const url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  // Connect every server once, so /readyz and /v1/servers show each one's state (or why it failed).
  for (const name of runtime.servers.serverNames)
    runtime.servers.getServerCapabilities(name).catch(() => undefined);

  let closing: Promise<void> | undefined;
  return {
    url,
    host: address,
    port,
    runtime,
    close() {
      closing ??= (async () => {
        state.draining = true;
        state.traces.emit('drain');
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...inFlight]),
          new Promise<void>((resolve) => {
            timer = setTimeout(resolve, limits.drainTimeoutMs);
          }),
        ]);
        clearTimeout(timer);
        server.closeAllConnections();
        await closed;
        await runtime.close();
      })();
      return closing;
    },
  };
}

// --- Internal helpers ---

async function handle(
  runtime: ServiceRuntime,
  incoming: IncomingMessage,
  response: ServerResponse,
  limits: ServiceRuntime['settings'],
): Promise<void> {
  const { state } = runtime;
  const started = performance.now();
  const method = incoming.method ?? 'GET';
  let routeLabel = 'unmatched';
  let tenant: Tenant | undefined;
  let pipelineId: string | undefined;
  let server: string | undefined;
  const controller = new AbortController();
  // The client gone before its answer: its turn or call stops too. A response that was sent
  // closes as well: nothing is aborted then (an abort event and a DOMException per request).
  response.once('close', () => {
    if (!response.writableFinished) controller.abort();
  });
  state.metrics.inFlight++;
  let timer: NodeJS.Timeout | undefined;
  try {
    const url = new URL(incoming.url ?? '/', 'http://service.invalid');
    const { route, params } = matchRoute(serviceRoutes, method, url.pathname);
    routeLabel = route.path;
    server = params.server;
    if (state.draining && route.authenticated) {
      throw new ContextError('SERVICE_UNAVAILABLE', 'the service is shutting down; retry on another replica');
    }
    const query = queryObject(url.searchParams);
    pipelineId = typeof query.pipelineId === 'string' ? query.pipelineId : undefined;
    if (route.authenticated) {
      tenant = runtime.tenants.authenticate(incoming.headers.authorization, {
        address: incoming.socket.remoteAddress ?? '',
        relayed: forwardingHeaders.some((name) => incoming.headers[name] !== undefined),
        host: incoming.headers.host ?? '',
      });
    }
    const parsedQuery = route.query ? parseRequest(route.query, query, 'query') : undefined;
    let body: unknown;
    if (route.body) {
      body = parseRequest(
        route.body,
        await readJsonBody(incoming, { maxBytes: limits.maxBodyBytes, timeoutMs: limits.bodyTimeoutMs }),
        'body',
      );
      const named = (body as { pipelineId?: unknown; scope?: { pipelineId?: unknown } }).pipelineId;
      if (typeof named === 'string') pipelineId = named;
    }
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ContextError(
          'REQUEST_TIMEOUT',
          `not answered within ${limits.requestTimeoutMs} ms`,
          {
            limit: limits.requestTimeoutMs,
          },
        );
        controller.abort(error);
        reject(error);
      }, limits.requestTimeoutMs);
    });
    const reply = await Promise.race([
      route.handle(
        {
          tenant: tenant ?? anonymous,
          query: parsedQuery,
          body,
          params,
          signal: controller.signal,
          incoming,
          response,
        },
        runtime,
      ),
      timeout,
    ]);
    if (reply === 'streamed') return;
    if ('json' in reply) sendJsonText(response, reply.status, reply.json);
    else sendJson(response, reply.status, reply.body);
  } catch (error) {
    const { status, body } = errorReply(error);
    if (status === 500) process.emitWarning(`mcp-context serve: ${method} ${routeLabel}: ${String(error)}`);
    const code = String(body.error.code);
    if (refusalCodes.has(code)) {
      state.metrics.recordRefusal(code);
      runtime.audit.write({
        at: new Date().toISOString(),
        actor: {
          kind: 'service-client',
          ...(tenant?.id !== undefined && { tenant: tenant.id }),
          address: incoming.socket.remoteAddress ?? '',
          ...(pipelineId !== undefined && { pipelineId }),
        },
        ...(server !== undefined && { server }),
        operation: `${method} ${routeLabel}`,
        durationMs: Math.round((performance.now() - started) * 1000) / 1000,
        status: 'denied',
        errorCode: code as 'UNAUTHENTICATED',
      });
    }
    // A body not read to its end cannot be followed by another request on this connection.
    const unread = !incoming.complete || state.draining;
    sendJson(response, status, body, {
      ...(unread && { connection: 'close' }),
      ...(status === 401 && { 'www-authenticate': 'Bearer realm="mcp-context"' }),
    });
  } finally {
    clearTimeout(timer);
    state.metrics.inFlight--;
    state.metrics.recordRequest(
      method,
      routeLabel,
      response.statusCode,
      (performance.now() - started) / 1000,
    );
  }
}

/** Unauthenticated routes (probes, the document) act for nobody. */
const anonymous: Tenant = {
  requirePipeline: () => {
    throw new ContextError('UNAUTHENTICATED', 'this route needs a key');
  },
  requireAgent: () => {},
  allowsPipeline: () => false,
  conversationKey: (conversationId) => conversationId,
  conversationOf: () => undefined,
};

/** The query as an object; a parameter given twice is refused rather than one of its values silently kept. */
function queryObject(parameters: URLSearchParams): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of parameters) {
    if (Object.hasOwn(result, name)) {
      throw new ContextError('INVALID_REQUEST', `query.${name}: given more than once`, {
        field: `query.${name}`,
      });
    }
    result[name] = value;
  }
  return result;
}
