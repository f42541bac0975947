import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isSessionGone } from './classify-transport-error.js';
import { raceAbort } from './race-abort.js';
import type { ServerConnection } from './server-connection.js';
import { sessionIdOf } from './session-id-of.js';
import { toContextError } from './to-context-error.js';

export type SessionRequest = { signal?: AbortSignal; timeout: number };

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
 */
export async function callOnSession<T>(
  connection: ServerConnection,
  operation: string,
  options: { readonly signal?: AbortSignal; readonly timeout: number },
  run: (client: Client, request: SessionRequest) => Promise<T>,
): Promise<T> {
  connection.statusRecord.update({ lastUsedAt: new Date().toISOString() });
  const request = { signal: options.signal, timeout: options.timeout };
  try {
    options.signal?.throwIfAborted();
    // Connecting is not abortable in the SDK: race it, so a hung server cannot outlive the caller.
    const client = await raceAbort(connection.client(), options.signal);
    const carriedSessionId = sessionIdOf(client) !== undefined;
    try {
      return await run(client, request);
    } catch (error) {
      if (options.signal?.aborted || !isSessionGone(error, carriedSessionId)) throw error;
      connection.invalidate(client);
      if (!idempotent.has(operation)) throw error;
      return await run(await raceAbort(connection.client(), options.signal), request);
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
