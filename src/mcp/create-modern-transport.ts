import type {
  FetchLike,
  OAuthClientProvider,
  StreamableHTTPClientTransportOptions,
  Transport,
} from '@modelcontextprotocol/client';
import { drainStderr } from './create-transport.js';
import type { StderrTail } from './stderr-tail.js';

/** Where a 2026-07-28 session goes: a Streamable HTTP endpoint, or a stdio child. */
export type ModernEndpoint =
  | {
      readonly kind: 'http';
      readonly url: string;
      /** Every request goes through it: endpoint policy, redirects, byte caps, mTLS, OAuth. */
      readonly fetch: FetchLike;
      readonly headers?: Record<string, string>;
      readonly authProvider?: OAuthClientProvider;
    }
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** The whole environment the child gets (the SDK's safe subset plus the config's `env`). */
      readonly env: Record<string, string>;
      readonly cwd?: string;
      /** Most bytes of one message (past it the transport closes the session); unset: 10 MiB. */
      readonly maxMessageBytes?: number;
      /** Where its stderr goes (see drainStderr). */
      readonly stderrTail?: StderrTail;
    };

/**
 * The MCP SDK v2 transport for a 2026-07-28 session, built as the 2025 one is (create-transport.ts):
 * over HTTP the same fetch, headers and OAuth provider; over stdio the same command, environment,
 * working directory, piped stderr and message cap. The v2 client is imported lazily.
 */
export async function createModernTransport(endpoint: ModernEndpoint): Promise<Transport> {
  if (endpoint.kind === 'stdio') {
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    // A subclass, so that the connect's server/discover goes to the session's own child: on the
    // base class the v2 client probes on a sibling process it spawns for that alone (for servers
    // that may be legacy). This one is known to be modern: it refused initialize naming the
    // revision, or a verdict says so. One child per session, as on 2025.
    class SessionStdioTransport extends StdioClientTransport {}
    const transport = new SessionStdioTransport({
      command: endpoint.command,
      args: [...endpoint.args],
      env: endpoint.env,
      ...(endpoint.cwd !== undefined && { cwd: endpoint.cwd }),
      // Piped and drained, as on 2025 (see drainStderr).
      stderr: 'pipe',
      ...(endpoint.maxMessageBytes !== undefined && { maxBufferSize: endpoint.maxMessageBytes }),
    });
    drainStderr(transport.stderr, endpoint.stderrTail);
    return transport;
  }
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  return new StreamableHTTPClientTransport(new URL(endpoint.url), {
    requestInit: { headers: endpoint.headers ?? {} },
    fetch: endpoint.fetch,
    // Redirects are followed by our fetch, hop by hop, each hop checked against the endpoint
    // policy and stripped of credentials across origins, as on the 2025 path (the v2 default,
    // 'same-origin', would refuse a cross-origin hop before the policy sees it).
    redirectPolicy: 'follow',
    // The v1 and v2 provider interfaces are the same methods (v2 grew out of v1's).
    ...(endpoint.authProvider !== undefined && {
      authProvider: endpoint.authProvider as unknown as StreamableHTTPClientTransportOptions['authProvider'],
    }),
  });
}
