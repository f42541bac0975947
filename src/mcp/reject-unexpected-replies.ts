import type { FetchLike } from '@modelcontextprotocol/client';
import { HttpReplyError } from './http-reply-error.js';

/** MCP spec, "Transports > Streamable HTTP": a POST carrying requests is answered with one of these. */
const jsonRpcMediaTypes = new Set(['application/json', 'text/event-stream']);
// A media type is an attacker's string too: only its essence is kept, and only this much of it.
const maxMediaTypeLength = 60;

/**
 * Wraps a Streamable HTTP transport's fetch: a successful reply to a POST to the server's URL
 * whose media type is not JSON-RPC (an HTML page from a proxy or a login wall) fails with its
 * status and media type, and its body is never read. (The SDK would report "Unexpected content
 * type" without the status.) 202 has no body to judge; every other request — OAuth metadata,
 * token, the GET stream — passes untouched.
 */
export function rejectUnexpectedReplies(fetch: FetchLike, serverUrl: string): FetchLike {
  const target = new URL(serverUrl).href;
  return async (input, init) => {
    const response = await fetch(input, init);
    const method = (init?.method ?? 'GET').toUpperCase();
    if (method !== 'POST' || !response.ok || response.status === 202) return response;
    if (new URL(String(input)).href !== target) return response;
    const essence = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    if (jsonRpcMediaTypes.has(essence)) return response;
    await response.body?.cancel().catch(() => undefined);
    throw new HttpReplyError(response.status, essence.slice(0, maxMediaTypeLength));
  };
}
