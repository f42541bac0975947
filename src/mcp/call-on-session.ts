import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { inSpan, type Telemetry, withTraceContext } from '../trace/telemetry.js';
import { isSessionGone } from './classify-transport-error.js';
import { raceAbort } from './race-abort.js';
import type { ServerConnection } from './server-connection.js';
import { sessionIdOf } from './session-id-of.js';
import { toContextError } from './to-context-error.js';

export type SessionRequest = { signal?: AbortSignal; timeout: number };

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
  options: { readonly signal?: AbortSignal; readonly timeout: number; readonly telemetry?: Telemetry },
  run: (client: Client, request: SessionRequest, traced: Traced) => Promise<T>,
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
  options: { readonly signal?: AbortSignal; readonly timeout: number },
  run: (client: Client, request: SessionRequest, traced: Traced) => Promise<T>,
  traced: Traced,
): Promise<T> {
  connection.statusRecord.update({ lastUsedAt: new Date().toISOString() });
  const request = { signal: options.signal, timeout: options.timeout };
  try {
    options.signal?.throwIfAborted();
    // Connecting is not abortable in the SDK: race it, so a hung server cannot outlive the caller.
    const client = await raceAbort(connection.client(), options.signal);
    const carriedSessionId = sessionIdOf(client) !== undefined;
    try {
      return await run(client, request, traced);
    } catch (error) {
      if (options.signal?.aborted || !isSessionGone(error, carriedSessionId)) throw error;
      connection.invalidate(client);
      if (!idempotent.has(operation)) throw error;
      return await run(await raceAbort(connection.client(), options.signal), request, traced);
    }
  } catch (error) {
    const failure = toContextError(connection.redactError(error), {
      server: connection.name,
      operation,
      signal: options.signal,
    });
    if (failure.code !== 'ABORTED') connection.statusRecord.recordError(failure);
    throw failure;
  }
}
