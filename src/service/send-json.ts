import type { ServerResponse } from 'node:http';
import { ContextError } from '../index.js';
import { httpStatusOf } from './http-status-of.js';
import { hintOf } from './parse-request.js';

/** Writes a JSON answer (unless the response has begun: then the connection is all that is left to end). */
export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  sendJsonText(response, status, JSON.stringify(body), headers);
}

/** Writes JSON text made already (see sendJson). */
export function sendJsonText(
  response: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  // Encoded once: its length is the header's, and the same bytes are written.
  const bytes = Buffer.from(text, 'utf8');
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': bytes.length,
    'cache-control': 'no-store',
    ...headers,
  });
  response.end(bytes);
}

/** The `{ error: { code, message, … } }` body and status of a failure; anything not a ContextError is INTERNAL_ERROR (its message not shown). */
export function errorReply(error: unknown): { status: number; body: { error: Record<string, unknown> } } {
  if (!ContextError.isInstance(error)) {
    return {
      status: 500,
      body: { error: { code: 'INTERNAL_ERROR', message: 'internal error (see the service log)' } },
    };
  }
  const hint = hintOf(error);
  const value = error.value;
  return {
    status: httpStatusOf(error.code),
    body: {
      error: {
        code: error.code,
        message: error.message,
        ...(error.field !== undefined && { field: error.field }),
        // Plain values only: an object in `value` may be large or a server's.
        ...((typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') && {
          value,
        }),
        ...(error.limit !== undefined && { limit: error.limit }),
        ...(error.server !== undefined && { server: error.server }),
        ...(hint !== undefined && { hint }),
      },
    },
  };
}
