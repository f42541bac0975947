import type { StreamableHTTPClientTransportOptions, Transport } from '@modelcontextprotocol/client';
import type { TransportAuth } from '../credentials/resolve-transport-auth.js';
import { rejectUnexpectedReplies } from './reject-unexpected-replies.js';
import type { McpServerConfig } from './server-config.js';
import type { StderrTail } from './stderr-tail.js';

/** What a transport needs besides its config. */
export interface TransportInputs {
  /** A remote server's resolved credentials: headers, an OAuth provider or a client-certificate fetch. */
  readonly auth?: TransportAuth;
  /**
   * Most bytes a stdio server's message may take (what is buffered while its newline has not
   * come); past it the SDK closes the session. Unset: the SDK's 10 MiB.
   */
  readonly maxMessageBytes?: number;
  /** A stdio child's stderr goes here (its last kilobyte, for a failed connect's message). */
  readonly stderrTail?: StderrTail;
}

/**
 * Builds the SDK transport for one server config. The stdio transport is imported lazily so
 * that the library's root entry never pulls in `child_process`.
 */
export async function createTransport(
  config: McpServerConfig,
  inputs: TransportInputs = {},
): Promise<Transport> {
  const { auth } = inputs;
  if ('createTransport' in config) return config.createTransport();
  if ('command' in config) {
    const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
    const transport = new StdioClientTransport({
      command: config.command,
      args: [...config.args],
      env: await stdioEnvironment(config.env),
      cwd: config.cwd,
      stderr: 'pipe',
      ...(inputs.maxMessageBytes !== undefined && { maxBufferSize: inputs.maxMessageBytes }),
    });
    drainStderr(transport.stderr, inputs.stderrTail);
    return transport;
  }
  if (config.type === 'http') {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const options = remoteOptions(config, auth);
    return new StreamableHTTPClientTransport(new URL(config.url), {
      ...options,
      fetch: rejectUnexpectedReplies(options.fetch ?? ((url, init) => fetch(url, init)), config.url),
      // Redirects are followed by our fetch, hop by hop, each hop checked against the endpoint
      // policy and stripped of credentials across origins (the v2 default, 'same-origin', would
      // refuse a cross-origin hop before the policy sees it).
      redirectPolicy: 'follow',
    });
  }
  const { SSEClientTransport } = await import('@modelcontextprotocol/client');
  return new SSEClientTransport(new URL(config.url), remoteOptions(config, auth));
}

/**
 * A stdio child's stderr is piped, so that it never lands on the host's, and read: left unread,
 * the pipe fills (the SDK's pass-through stream and the pipe hold about 100 KB) and a server that
 * logs stops at its next write, since Node writes to a pipe synchronously; every request then
 * times out. Read into `tail` (its last kilobyte kept) or to nothing. The same for either era.
 */
export function drainStderr(stderr: unknown, tail?: StderrTail): void {
  if (tail) tail.follow(stderr);
  else (stderr as { resume?: () => void } | null)?.resume?.();
}

/**
 * A stdio server's whole environment: the SDK passes only a safe subset of the parent's
 * (`PATH`, `HOME`, …); the config adds to it explicitly. The same for a child of either era.
 */
export async function stdioEnvironment(
  env: Record<string, string> | undefined,
): Promise<Record<string, string>> {
  const { getDefaultEnvironment } = await import('@modelcontextprotocol/client/stdio');
  return { ...getDefaultEnvironment(), ...env };
}

// --- Internal helpers ---

function remoteOptions(config: Extract<McpServerConfig, { url: string }>, auth: TransportAuth | undefined) {
  return {
    requestInit: { headers: auth?.headers ?? config.headers },
    // The v1 and v2 provider interfaces are the same methods (v2 grew out of v1's).
    ...(auth?.authProvider !== undefined && {
      authProvider: auth.authProvider as unknown as StreamableHTTPClientTransportOptions['authProvider'],
    }),
    ...(auth !== undefined && { fetch: auth.fetch }),
  };
}
