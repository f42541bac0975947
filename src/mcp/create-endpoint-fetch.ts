import type { LookupFunction } from 'node:net';
import type { FetchLike } from '@modelcontextprotocol/client';
import { createMtlsAgent, createMtlsFetch, type MtlsOptions } from '../credentials/create-mtls-fetch.js';
import { sendNodeRequest } from '../credentials/send-node-request.js';
import type { ContextError } from '../errors.js';
import { capResponseBody, requestIdsOf } from './cap-response-body.js';
import {
  type CheckedAddress,
  checkEndpointAddresses,
  type EndpointPolicy,
  restrictsEndpoints,
} from './endpoint-policy.js';
import { requestSignal } from './request-signal.js';

export interface EndpointFetchOptions {
  readonly policy: EndpointPolicy;
  /** Named in ENDPOINT_DENIED errors. */
  readonly server: string;
  /** Present a TLS client certificate (mTLS). */
  readonly tls?: MtlsOptions;
  /** Most bytes of one response body (one event of an event stream) read: `capResponseBody`. */
  readonly maxResponseBytes?: number;
  /** A GET event stream passed `maxResponseBytes` (see `ResponseCap`). */
  readonly onStreamTooLarge?: (error: ContextError) => void;
}

/** Redirects a followed request may take (as browsers and undici allow). */
const maxRedirects = 5;
const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * The fetch every outbound request of a server goes through — MCP requests and everything the
 * SDK's OAuth code fetches (protected-resource and authorization-server metadata, registration,
 * token), and each redirect hop. Under a policy that restricts endpoints, each URL is checked
 * before anything is sent (ENDPOINT_DENIED otherwise) and the connection is pinned to the
 * address that was checked, so DNS cannot answer differently in between (rebinding).
 */
export function createEndpointFetch(options: EndpointFetchOptions): FetchLike {
  const send = createCappedFetch(options);
  // The SDK's transport passes every request the one signal it aborts on close. Fetch adds a
  // listener per request to the signal it is given and removes it only when the request is
  // garbage-collected, so under parallel reads thousands piled up on that one signal (and
  // fetch's own check counted them on every request): each request gets a signal of its own
  // instead, unhooked from the transport's once its body is read (`requestSignal`).
  return async (input, init) => {
    const parent = init?.signal;
    if (!parent) return send(input, init);
    const own = requestSignal(parent);
    let response: Response;
    try {
      response = await send(input, { ...init, signal: own.signal });
    } catch (error) {
      own.release();
      throw error;
    }
    return releasedWithBody(response, own.release);
  };
}

// --- Internal helpers ---

function createCappedFetch(options: EndpointFetchOptions): FetchLike {
  const maxBytes = options.maxResponseBytes;
  if (maxBytes === undefined) return createCheckedFetch(options);
  const checked = createCheckedFetch(options);
  // Every body is read through the cap: a server cannot make the client hold more, whatever it sends.
  return async (input, init) =>
    capResponseBody(
      await checked(input, init),
      {
        maxBytes,
        server: options.server,
        ...(options.onStreamTooLarge !== undefined && { onStreamTooLarge: options.onStreamTooLarge }),
      },
      requestIdsOf(init?.body),
    );
}

/**
 * The response, calling `release` once its body has been read to the end, has failed or was
 * cancelled (at once when it has none): until then the transport closing still aborts the
 * read, an event stream's included.
 */
function releasedWithBody(response: Response, release: () => void): Response {
  if (response.body === null) {
    release();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        release();
        throw error;
      }
      if (chunk.done) {
        release();
        controller.close();
        return;
      }
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      release();
      return reader.cancel(reason);
    },
  });
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function createCheckedFetch(options: EndpointFetchOptions): FetchLike {
  if (!restrictsEndpoints(options.policy)) {
    return options.tls === undefined ? (url, init) => fetch(url, init) : createMtlsFetch(options.tls);
  }
  const agent = options.tls === undefined ? undefined : createMtlsAgent(options.tls);
  const once = async (url: URL, init: RequestInit) => {
    if (agent !== undefined && url.protocol !== 'https:') {
      throw new TypeError(`an mTLS client certificate needs an https URL, not ${url.protocol}`);
    }
    const addresses = await checkEndpointAddresses(url.href, options.policy, options.server);
    return sendNodeRequest(url, init, {
      ...(agent !== undefined && { agent }),
      ...(addresses.length > 0 && { lookup: pinnedLookup(addresses) }),
    });
  };
  return async (input, init = {}) => {
    let url = new URL(input);
    let request = init;
    for (let hop = 0; ; hop++) {
      const response = await once(url, request);
      const location = response.headers.get('location');
      if (request.redirect === 'manual' || !redirectStatuses.has(response.status) || location === null) {
        return response;
      }
      await response.body?.cancel();
      if (request.redirect === 'error' || hop >= maxRedirects) {
        throw new TypeError('fetch failed', { cause: new Error(`too many redirects, or redirect refused`) });
      }
      const next = new URL(location, url);
      request = redirectedInit(request, response.status, next.origin !== url.origin);
      url = next;
    }
  };
}

/** Resolves the host name to the checked addresses only (both lookup call shapes Node uses). */
function pinnedLookup(addresses: readonly CheckedAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const first = addresses[0] as CheckedAddress;
    if (options?.all)
      callback(
        null,
        addresses.map((entry) => ({ ...entry })),
      );
    else callback(null, first.address, first.family);
  }) as unknown as LookupFunction;
}

/** Fetch's redirect rules: 303 (and 301/302 after POST) become GET; credentials stay on their origin. */
function redirectedInit(init: RequestInit, status: number, crossOrigin: boolean): RequestInit {
  const method = (init.method ?? 'GET').toUpperCase();
  const toGet = status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
  const headers = new Headers(init.headers);
  if (toGet) {
    headers.delete('content-type');
    headers.delete('content-length');
  }
  if (crossOrigin) {
    headers.delete('authorization');
    headers.delete('cookie');
  }
  const { body: _body, ...rest } = init;
  return { ...rest, headers, ...(toGet ? { method: 'GET' } : { method, body: init.body ?? null }) };
}
