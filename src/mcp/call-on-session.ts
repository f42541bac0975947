import { inSpan, type Telemetry, withTraceContext } from '../trace/telemetry.js';
import { isSessionGone } from './classify-transport-error.js';
import type { McpSession } from './mcp-session.js';
import { raceAbort } from './race-abort.js';
import { requestSignal } from './request-signal.js';
import { RpcError, rpcErrorCodes } from './rpc-error.js';
import type { ServerConnection } from './server-connection.js';
import { sessionIdOf } from './session-id-of.js';
import { toContextError } from './to-context-error.js';

export type SessionRequest = { signal?: AbortSignal; timeout: number };

/** How long a call may take, and whether that includes connecting (the caller set its own timeout). */
export interface CallBounds {
  readonly signal?: AbortSignal;
  readonly timeout: number;
  readonly timeoutCoversConnect?: boolean;
}

/** Adds the request span's trace context to params as `_meta` (identity without telemetry). */
export type Traced = {
  <Params extends object>(params: Params): Params;
  <Params extends object>(params: Params | undefined): Params | undefined;
};

const untraced: Traced = <Params extends object>(params: Params | undefined) => params as Params;

/** Operations with no effect on the server: safe to send again on a fresh session. */
const idempotent = new Set([
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'tools/list',
  'completion/complete',
  'skills/list',
  'skills/get',
]);

/**
 * Runs one request on a server's session and turns any failure into a ContextError that
 * keeps the JSON-RPC code. When the session turns out to be gone, it is dropped; a
 * side-effect-free request is sent once more on a new one (MCP spec, "Session Management":
 * after a 404 the client starts a new session), anything else fails.
 *
 * With telemetry, the request is a CLIENT span named by its method (OpenTelemetry semantic
 * conventions for MCP: `mcp.method.name`, `mcp.resource.uri`, `mcp.session.id`), and its trace
 * context travels in `params._meta` (MCP spec, "_meta": `traceparent`, `tracestate`).
 */
export async function callOnSession<T>(
  connection: ServerConnection,
  operation: string,
  options: CallBounds & { readonly telemetry?: Telemetry },
  run: (client: McpSession, request: SessionRequest, traced: Traced) => Promise<T>,
  uri?: string,
): Promise<T> {
  const telemetry = options.telemetry;
  if (!telemetry || operation === 'initialize') return send(connection, operation, options, run, untraced);
  const started = performance.now();
  let errorType: string | undefined;
  try {
    return await inSpan(
      telemetry,
      operation,
      {
        'mcp.method.name': operation,
        'mcp.resource.uri': uri,
        'mcp_context.server': connection.name,
        'mcp.session.id': connection.sessionId,
      },
      (span) => {
        const traced: Traced = span
          ? <Params extends object>(params: Params | undefined) =>
              withTraceContext(telemetry, params) as Params
          : untraced;
        return send(connection, operation, options, run, traced);
      },
      'client',
    );
  } catch (error) {
    errorType = (error as { code?: string }).code ?? 'INTERNAL_ERROR';
    throw error;
  } finally {
    telemetry.recordRequest({
      server: connection.name,
      method: operation,
      durationSeconds: (performance.now() - started) / 1000,
      ...(errorType !== undefined && { errorType }),
    });
  }
}

// --- Internal helpers ---

async function send<T>(
  connection: ServerConnection,
  operation: string,
  options: CallBounds,
  run: (client: McpSession, request: SessionRequest, traced: Traced) => Promise<T>,
  traced: Traced,
): Promise<T> {
  connection.statusRecord.update({ lastUsedAt: new Date().toISOString() });
  // The SDK adds an 'abort' listener per request to the signal it is given and never removes
  // it: the request gets a signal of its own, unhooked from the caller's (which may be a
  // host's, for every call) when the call is over.
  const own = options.signal && requestSignal(options.signal);
  try {
    options.signal?.throwIfAborted();
    const started = performance.now();
    const client = await connectWithin(connection, options);
    // A caller's own timeout bounds the whole call, connecting included: the request gets what is left.
    const request = {
      ...(own && { signal: own.signal }),
      timeout: options.timeoutCoversConnect
        ? Math.max(1, Math.round(options.timeout - (performance.now() - started)))
        : options.timeout,
    };
    const carriedSessionId = sessionIdOf(client) !== undefined;
    try {
      return await run(client, request, traced);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      // A session this side closed on purpose: the same request would meet the same end.
      const cause = connection.closeCauseOf(client);
      if (cause !== undefined) throw cause;
      if (!isSessionGone(error, carriedSessionId)) throw error;
      connection.invalidate(client);
      if (!idempotent.has(operation)) throw error;
      return await run(await connectWithin(connection, options), request, traced);
    }
  } catch (error) {
    const failure = toContextError(connection.redactError(error), {
      server: connection.name,
      operation,
      signal: options.signal,
    });
    if (failure.code !== 'ABORTED') connection.statusRecord.recordError(failure);
    throw failure;
  } finally {
    own?.release();
  }
}

/**
 * The session, within the caller's signal and — when the caller set its own timeout — within
 * that timeout: connecting is shared by every caller and not abortable per caller in the SDK, so
 * it is raced, and a server that never answers initialize costs a call no more than its timeout
 * (a RequestTimeout, as the SDK reports a slow request). Without a timeout of its own a call
 * waits for the connect, which has its own timeout (an `auto` fallback may take two).
 */
async function connectWithin(connection: ServerConnection, options: CallBounds): Promise<McpSession> {
  // Already connected: nothing to wait for, so no timer and no race (send checked the signal).
  const open = connection.openClient;
  if (open) return open;
  if (!options.timeoutCoversConnect) return raceAbort(connection.client(), options.signal);
  const timer = AbortSignal.timeout(options.timeout);
  try {
    // Raced against each signal in turn, not `AbortSignal.any` of both (on Node 20 it leaves a
    // reference on the caller's signal per call until that signal aborts).
    return await raceAbort(raceAbort(connection.client(), timer), options.signal);
  } catch (error) {
    if (!timer.aborted || options.signal?.aborted) throw error;
    throw new RpcError(
      rpcErrorCodes.requestTimeout,
      `no session within ${options.timeout} ms (the server has not answered initialize)`,
    );
  }
}
