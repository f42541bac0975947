import { ContextError, causeWhere } from '../errors.js';

/**
 * The SDK's `auth()` refuses protected-resource metadata whose `resource` is not the MCP server's
 * URL (RFC 9728 §3.3; MCP authorization spec, "Authorization Server Discovery") with a plain
 * Error of this shape. Its text is all the SDK gives; test/credentials keeps it honest against
 * the SDK in use.
 */
const mismatchPattern = /^Protected resource (\S+) does not match expected (\S+) \(or origin\)$/;

/**
 * AUTH_RESOURCE_MISMATCH for the SDK's resource-mismatch failure (found in `error` or its
 * causes), undefined for anything else. A mismatch is a misconfigured or impersonating server,
 * not an unreachable one: it waits for its operator, not for a reconnect.
 */
export function resourceMismatchOf(error: unknown, server: string): ContextError | undefined {
  // Our own error, deeper down or not, already says what happened.
  const found = causeWhere(
    error,
    (cause) => ContextError.isInstance(cause) || mismatchPattern.test(cause.message),
  );
  const match =
    found === undefined || ContextError.isInstance(found) ? null : mismatchPattern.exec(found.message);
  if (match === null) return undefined;
  return new ContextError(
    'AUTH_RESOURCE_MISMATCH',
    `server "${server}": its protected-resource metadata names the resource ${match[1]}, not ${match[2]}: no token is requested for it`,
    { server, field: 'resource', value: match[1] },
    found,
  );
}
