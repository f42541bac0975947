import { RpcError, rpcErrorCodes } from './rpc-error.js';

/**
 * The HTTP status the SDK's Streamable HTTP or SSE client transport failed with, if any: the v2
 * Streamable HTTP transport's `SdkHttpError` carries it in `data.status`, its SSE transport's
 * error (and the v1 transports') in a numeric `code`, after a message naming the transport.
 */
export function httpStatusOf(error: unknown): number | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error.name === 'SdkHttpError') {
    const status = (error as { data?: { status?: unknown } }).data?.status;
    return typeof status === 'number' && status > 0 ? status : undefined;
  }
  const code = (error as { code?: unknown }).code;
  const fromTransport = /^(Streamable HTTP|SSE) error:/.test(error.message);
  return fromTransport && typeof code === 'number' && code > 0 ? code : undefined;
}

/**
 * Whether the SDK's stdio transport gave up on a message larger than its buffer (`maxBufferSize`):
 * it reports this error, then closes the session.
 */
export function isStdioMessageOverflow(error: unknown): boolean {
  return error instanceof Error && /^ReadBuffer exceeded maximum size of \d+ bytes$/.test(error.message);
}

/**
 * Whether an `auto` server may fall back from Streamable HTTP to SSE after this connect
 * failure. MCP spec, "Transports > Backwards Compatibility": a 4xx such as 404 or 405 on the
 * initialize POST means an old HTTP+SSE server. A network error or a timeout may be one too.
 * Never after 401/403 (credentials were refused: SSE would send them again elsewhere), a TLS
 * failure (the peer is not who it claims). Never once initialize was answered either: the caller
 * knows that (FailedAfterInitialize), not the error.
 */
export function shouldFallBackToSse(error: unknown): boolean {
  if (refusedCredentials(error)) return false;
  const status = httpStatusOf(error);
  if (status !== undefined) return status === 404 || status === 405;
  if (error instanceof RpcError) return error.code === rpcErrorCodes.requestTimeout;
  if (isTlsFailure(error)) return false;
  return isNetworkFailure(error);
}

/**
 * Whether the server refused the request's credentials (HTTP 401 or 403, after the transport's
 * own authorization where it has one): an answer about who is asking, not about the transport
 * or the era, so no other opening (SSE, a 2025 initialize after the probe) is tried.
 */
export function refusedCredentials(error: unknown): boolean {
  const status = httpStatusOf(error);
  return status === 401 || status === 403;
}

/**
 * Whether the session behind a failed request is gone, so the next request needs a new one:
 * the connection closed, the transport is not connected, the network failed, or (MCP spec,
 * "Session Management") the server answered 404 to a request carrying our session id. A 404
 * without a session id (a stateless server) is the server's answer, not a lost session.
 */
export function isSessionGone(error: unknown, carriedSessionId: boolean): boolean {
  if (error instanceof RpcError) return error.code === rpcErrorCodes.connectionClosed;
  if (httpStatusOf(error) === 404) return carriedSessionId;
  if (error instanceof Error && error.message === 'Not connected') return true;
  return isNetworkFailure(error) && !isTlsFailure(error);
}

// --- Internal helpers ---

const tlsCodePattern = /CERT|TLS|SSL/;

/** undici's `fetch` fails with `TypeError('fetch failed')` whose cause is the socket error. */
function isNetworkFailure(error: unknown): boolean {
  return error instanceof TypeError && error.message === 'fetch failed';
}

function isTlsFailure(error: unknown): boolean {
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause === undefined || cause === null) return false;
  const code = typeof cause.code === 'string' ? cause.code : '';
  const message = typeof cause.message === 'string' ? cause.message : '';
  return tlsCodePattern.test(code) || /certificate|tls|ssl/i.test(message);
}
