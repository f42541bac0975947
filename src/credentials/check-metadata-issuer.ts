import type { OAuthDiscoveryState } from '@modelcontextprotocol/client';
import { ContextError, causeWhere } from '../errors.js';

/**
 * RFC 8414 §3.3 (MCP 2026-07-28, SEP-2468): authorization-server metadata whose `issuer` is not
 * the issuer its well-known URL was built from MUST NOT be used; a server that serves another
 * server's metadata would otherwise get the user's authorization and the token request. Compared
 * as URLs (scheme, host, port, path): the SDK names a bare origin with a trailing slash where a
 * server's metadata names it without. A metadata document without an issuer is not one
 * (`issuer` is required) and is refused too. AUTH_FAILED, field `issuer`.
 */
export function checkMetadataIssuer(state: OAuthDiscoveryState, server: string): void {
  const metadata = state.authorizationServerMetadata as { issuer?: unknown } | undefined;
  if (metadata === undefined) return;
  const expected = state.authorizationServerUrl;
  const issuer = metadata.issuer;
  if (typeof issuer === 'string' && sameUrl(issuer, expected)) return;
  throw new ContextError(
    'AUTH_FAILED',
    `server "${server}": the authorization server ${JSON.stringify(expected)} sent metadata whose issuer is ${JSON.stringify(typeof issuer === 'string' ? issuer.slice(0, 200) : null)}: it is not used (RFC 8414 §3.3)`,
    { server, field: 'issuer' },
  );
}

/**
 * The same refusal where the SDK's `auth()` made it first (v2 checks the issuer echo during
 * discovery, before our provider sees the metadata): its `IssuerMismatchError` of kind
 * `metadata`, found in `error` or its causes, as AUTH_FAILED with our message; undefined for
 * anything else.
 */
export function metadataIssuerMismatchOf(error: unknown, server: string): ContextError | undefined {
  // Our own error, deeper down or not, already says what happened.
  const found = causeWhere(
    error,
    (cause) => ContextError.isInstance(cause) || isMetadataIssuerMismatch(cause),
  );
  if (found === undefined || ContextError.isInstance(found)) return undefined;
  const { expected, received } = found as { expected?: unknown; received?: unknown };
  return new ContextError(
    'AUTH_FAILED',
    `server "${server}": the authorization server ${JSON.stringify(expected)} sent metadata whose issuer is ${JSON.stringify(typeof received === 'string' ? received.slice(0, 200) : null)}: it is not used (RFC 8414 §3.3)`,
    { server, field: 'issuer' },
    found,
  );
}

// --- Internal helpers ---

function sameUrl(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** v2's IssuerMismatchError for authorization-server metadata (not for an authorization response). */
function isMetadataIssuerMismatch(error: Error): boolean {
  const { kind, expected } = error as { kind?: unknown; expected?: unknown };
  return error.name === 'IssuerMismatchError' && kind === 'metadata' && typeof expected === 'string';
}
