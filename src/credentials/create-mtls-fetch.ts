import { Agent } from 'node:https';
import type { FetchLike } from '@modelcontextprotocol/client';
import { sendNodeRequest } from './send-node-request.js';

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
  const agent = createMtlsAgent(options);
  return async (url, init = {}) => {
    const target = new URL(url);
    if (target.protocol !== 'https:') {
      throw new TypeError(`an mTLS client certificate needs an https URL, not ${target.protocol}`);
    }
    return sendNodeRequest(target, init, { agent });
  };
}

/** The https agent that presents the client certificate (keep-alive). */
export function createMtlsAgent(options: MtlsOptions): Agent {
  return new Agent({
    cert: options.cert,
    key: options.key,
    ...(options.ca !== undefined && { ca: options.ca }),
    keepAlive: true,
  });
}
