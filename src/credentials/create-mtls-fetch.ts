import { Agent, request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

export interface MtlsOptions {
  /** PEM client certificate (chain). */
  readonly cert: string;
  /** PEM private key of the certificate. */
  readonly key: string;
  /** PEM roots trusted for the server's certificate, in addition to Node's. */
  readonly ca?: string;
}

/**
 * A `fetch` for the SDK's HTTP transports that presents a TLS client certificate. Node's global
 * fetch (undici) takes a client certificate only through an undici `Agent` as `dispatcher`, and
 * undici is not a dependency of this library; `node:https` does the same job for the requests
 * MCP transports make (POST with a string body, GET for an SSE stream, DELETE). Redirects are
 * returned, not followed, as with `redirect: "manual"`: the SDK decides what to follow.
 */
export function createMtlsFetch(options: MtlsOptions): FetchLike {
  const agent = new Agent({
    cert: options.cert,
    key: options.key,
    ...(options.ca !== undefined && { ca: options.ca }),
    keepAlive: true,
  });
  return (url, init = {}) => send(new URL(url), init, agent);
}

// --- Internal helpers ---

async function send(url: URL, init: RequestInit, agent: Agent): Promise<Response> {
  if (url.protocol !== 'https:') {
    throw new TypeError(`an mTLS client certificate needs an https URL, not ${url.protocol}`);
  }
  const body = await bodyBytes(init.body);
  const headers = Object.fromEntries(new Headers(init.headers).entries());
  if (body !== undefined) headers['content-length'] = String(body.length);
  const signal = init.signal ?? undefined;
  signal?.throwIfAborted();
  return new Promise<Response>((resolve, reject) => {
    const outgoing = httpsRequest(url, { method: init.method ?? 'GET', headers, agent }, (incoming) => {
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
        new Response(stream, { status, statusText: incoming.statusMessage ?? '', headers: responseHeaders }),
      );
    });
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

async function bodyBytes(body: RequestInit['body']): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Buffer.from(await new Response(body).arrayBuffer());
}
