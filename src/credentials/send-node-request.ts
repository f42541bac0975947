import { request as httpRequest } from 'node:http';
import { type Agent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';

export interface NodeRequestOptions {
  /** An https agent (e.g. one presenting a TLS client certificate). */
  readonly agent?: Agent;
  /** Where the host name resolves to: pins the connection to an address checked beforehand. */
  readonly lookup?: LookupFunction;
}

/**
 * One HTTP exchange through node:http / node:https, shaped as `fetch` answers it: the body
 * streams (SSE works), the signal aborts, a network failure rejects as undici's
 * `TypeError('fetch failed')` with the socket error as cause. Redirects are returned, not
 * followed (`redirect: "manual"`): the caller decides what to follow.
 */
export async function sendNodeRequest(
  url: URL,
  init: RequestInit,
  options: NodeRequestOptions = {},
): Promise<Response> {
  const body = await bodyBytes(init.body);
  const headers = Object.fromEntries(new Headers(init.headers).entries());
  if (body !== undefined) headers['content-length'] = String(body.length);
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const outgoing = send(
      url,
      {
        method: init.method ?? 'GET',
        headers,
        ...(options.agent !== undefined && { agent: options.agent }),
        ...(options.lookup !== undefined && { lookup: options.lookup }),
      },
      (incoming) => {
        const status = incoming.statusCode ?? 0;
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          if (Array.isArray(value)) for (const item of value) responseHeaders.append(name, item);
          else if (value !== undefined) responseHeaders.set(name, value);
        }
        // Statuses that carry no body must not be given a stream (the Response constructor refuses).
        const noBody = status === 204 || status === 304 || init.method === 'HEAD';
        if (noBody) incoming.resume();
        const stream = noBody ? null : (Readable.toWeb(incoming) as ReadableStream<Uint8Array>);
        resolve(
          new Response(stream, {
            status,
            statusText: incoming.statusMessage ?? '',
            headers: responseHeaders,
          }),
        );
      },
    );
    const abort = () => {
      const reason = signal?.reason ?? new DOMException('This operation was aborted', 'AbortError');
      outgoing.destroy(reason instanceof Error ? reason : new Error(String(reason)));
      reject(reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
    outgoing.once('close', () => signal?.removeEventListener('abort', abort));
    // Shaped like undici's network failure, so transport error classification treats both alike.
    outgoing.once('error', (error) => reject(new TypeError('fetch failed', { cause: error })));
    outgoing.end(body);
  });
}

// --- Internal helpers ---

async function bodyBytes(body: RequestInit['body']): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Buffer.from(await new Response(body).arrayBuffer());
}
