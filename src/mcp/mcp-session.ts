import type { RequestOptions, Client as V2Client } from '@modelcontextprotocol/client';
import type { z } from 'zod';

/**
 * What the registry asks of an open session: the v2 SDK `Client` methods it calls. Every session
 * is a `ClientSession` (src/mcp/client-session.ts), of either era, so operations, paging, errors
 * and audit do not ask which era they are talking to.
 */
export type McpSession = Pick<
  V2Client,
  | 'readResource'
  | 'listResources'
  | 'listResourceTemplates'
  | 'listPrompts'
  | 'listTools'
  | 'getPrompt'
  | 'callTool'
  | 'complete'
  | 'subscribeResource'
  | 'unsubscribeResource'
  | 'getServerCapabilities'
  | 'getServerVersion'
  | 'getInstructions'
  | 'close'
  | 'onclose'
  | 'onerror'
> & {
  /** A request of a method beyond the spec's (an extension's), its result checked by `resultSchema`. */
  request<T>(
    request: { readonly method: string; readonly params?: Record<string, unknown> },
    resultSchema: z.ZodType<T>,
    options?: RequestOptions,
  ): Promise<T>;
  /** The transport while the session is open (its `sessionId` on a sessionful HTTP server). */
  readonly transport?: { readonly sessionId?: string | undefined } | undefined;
  /** Whether it is a 2026-07-28 session (stateless; subscriptions by `subscriptions/listen`). */
  readonly modern: boolean;
  /** Whether it runs over Streamable HTTP. */
  readonly streamableHttp: boolean;
};
