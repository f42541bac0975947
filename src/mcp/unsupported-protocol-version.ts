import { McpError } from '@modelcontextprotocol/sdk/types.js';

/** MCP 2026-07-28, "Lifecycle > Version Negotiation": none of the client's revisions is served. */
const unsupportedProtocolVersion = -32022;

/**
 * The revisions a server named when it refused ours (`-32022`, `data.supported`), or undefined
 * when the failure is anything else. Over stdio that is a JSON-RPC error; over Streamable HTTP
 * the v1 transport reports the 400 reply as a `StreamableHTTPError` whose message carries the
 * body it read (bounded by `maxResponseBytes`), so the JSON-RPC error is read back out of it.
 */
export function supportedVersionsOf(error: unknown): readonly string[] | undefined {
  if (error instanceof McpError) {
    return error.code === unsupportedProtocolVersion ? versionsIn(error.data) : undefined;
  }
  if (!(error instanceof Error) || (error as { code?: unknown }).code !== 400) return undefined;
  const start = error.message.indexOf('{');
  if (!error.message.startsWith('Streamable HTTP error:') || start < 0) return undefined;
  let body: { error?: { code?: unknown; data?: unknown } } | undefined;
  try {
    body = JSON.parse(error.message.slice(start));
  } catch {
    return undefined;
  }
  return body?.error?.code === unsupportedProtocolVersion ? versionsIn(body.error.data) : undefined;
}

// --- Internal helpers ---

function versionsIn(data: unknown): readonly string[] | undefined {
  const supported = (data as { supported?: unknown } | null | undefined)?.supported;
  if (!Array.isArray(supported)) return undefined;
  return supported.filter((version): version is string => typeof version === 'string');
}
