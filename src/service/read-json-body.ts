import type { IncomingMessage } from 'node:http';
import { ContextError } from '../index.js';

export interface BodyLimits {
  /** Most bytes accepted, counted as they arrive. */
  readonly maxBytes: number;
  /** The whole body must be in by then (a client trickling bytes is cut). */
  readonly timeoutMs: number;
}

/**
 * Reads a JSON request body within its limits. A declared Content-Length over the limit is
 * refused before a byte is read; an undeclared (chunked) body is counted while it streams and
 * refused the moment it passes the limit. Errors: UNSUPPORTED_MEDIA_TYPE, BODY_TOO_LARGE
 * (`limit` the cap), BODY_TIMEOUT, INVALID_JSON. An empty body is `undefined`.
 */
export async function readJsonBody(request: IncomingMessage, limits: BodyLimits): Promise<unknown> {
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > limits.maxBytes) throw tooLarge(limits.maxBytes);
  const hasBody =
    declared !== undefined ? Number(declared) > 0 : request.headers['transfer-encoding'] !== undefined;
  if (hasBody && !isJsonMediaType(request.headers['content-type'])) {
    throw new ContextError(
      'UNSUPPORTED_MEDIA_TYPE',
      `expected Content-Type application/json (got ${JSON.stringify(request.headers['content-type'] ?? '')})`,
      { field: 'content-type', value: request.headers['content-type'] ?? '' },
    );
  }
  const text = await readText(request, limits);
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ContextError('INVALID_JSON', `the body is not JSON: ${(error as Error).message}`, {
      field: 'body',
    });
  }
}

/** `application/json` or a `+json` type, by the parsed essence (parameters such as charset ignored). */
export function isJsonMediaType(header: string | undefined): boolean {
  const essence = (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return essence === 'application/json' || /^application\/[^/\s]+\+json$/.test(essence);
}

// --- Internal helpers ---

function tooLarge(maxBytes: number): ContextError {
  return new ContextError('BODY_TOO_LARGE', `the body is larger than ${maxBytes} bytes`, {
    field: 'body',
    limit: maxBytes,
  });
}

function readText(request: IncomingMessage, limits: BodyLimits): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    const finish = (error?: ContextError) => {
      clearTimeout(timer);
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('aborted', onAborted);
      if (error) {
        // Nothing more of this body is wanted: stop buffering it.
        request.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onData = (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > limits.maxBytes) finish(tooLarge(limits.maxBytes));
      else chunks.push(chunk);
    };
    const onEnd = () => finish();
    const onError = (error: Error) =>
      finish(
        new ContextError('INVALID_JSON', `the body could not be read: ${error.message}`, { field: 'body' }),
      );
    const onAborted = () =>
      finish(
        new ContextError('BODY_TIMEOUT', 'the client closed the connection mid-body', { field: 'body' }),
      );
    const timer = setTimeout(
      () =>
        finish(
          new ContextError('BODY_TIMEOUT', `the body did not arrive within ${limits.timeoutMs} ms`, {
            field: 'body',
            limit: limits.timeoutMs,
          }),
        ),
      limits.timeoutMs,
    );
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('aborted', onAborted);
  });
}
