import { RpcError } from './rpc-error.js';

/** MCP 2026-07-28, "Lifecycle > Version Negotiation": none of the client's revisions is served. */
const unsupportedProtocolVersion = -32022;

/**
 * The revisions a server named when it refused ours (`-32022`, `data.supported`), or undefined
 * when the failure is anything else. Over stdio, and over Streamable HTTP where the 400 reply's
 * body is a JSON-RPC error for the request (the v2 transport delivers it as the answer), that is
 * an RpcError; a 400 the transport could not match to the request is an `SdkHttpError` whose
 * `data.text` is the body it read (bounded by `maxResponseBytes`), so the error is read back out.
 */
export function supportedVersionsOf(error: unknown): readonly string[] | undefined {
  if (error instanceof RpcError) {
    return error.code === unsupportedProtocolVersion ? versionsIn(error.data) : undefined;
  }
  if (!(error instanceof Error) || error.name !== 'SdkHttpError') return undefined;
  const data = (error as { data?: { status?: unknown; text?: unknown } }).data;
  if (data?.status !== 400 || typeof data.text !== 'string') return undefined;
  let body: { error?: { code?: unknown; data?: unknown } } | undefined;
  try {
    body = JSON.parse(data.text);
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
