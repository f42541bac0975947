import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/**
 * What the registry asks of an open session: the v1 SDK `Client` methods it calls, in their v1
 * shapes. Every session is a `ClientSession` (the v2 client behind the same methods), of either
 * era, so operations, paging, errors and audit do not ask which era they are talking to.
 */
export type McpSession = Pick<
  Client,
  | 'readResource'
  | 'listResources'
  | 'listResourceTemplates'
  | 'listPrompts'
  | 'listTools'
  | 'getPrompt'
  | 'callTool'
  | 'complete'
  | 'request'
  | 'subscribeResource'
  | 'unsubscribeResource'
  | 'getServerCapabilities'
  | 'getServerVersion'
  | 'getInstructions'
  | 'close'
  | 'onclose'
  | 'onerror'
> & {
  /** The transport while the session is open (its `sessionId` on a sessionful HTTP server). */
  readonly transport?: { readonly sessionId?: string | undefined } | undefined;
  /** Whether it is a 2026-07-28 session (stateless; subscriptions by `subscriptions/listen`). */
  readonly modern: boolean;
  /** Whether it runs over Streamable HTTP. */
  readonly streamableHttp: boolean;
};
