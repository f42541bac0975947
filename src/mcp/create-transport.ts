import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from './server-config.js';

/**
 * Builds the SDK transport for one server config. The stdio transport is imported lazily so
 * that the library's root entry never pulls in `child_process`.
 */
export async function createTransport(config: McpServerConfig): Promise<Transport> {
  if ('createTransport' in config) return config.createTransport();
  if ('command' in config) {
    const { StdioClientTransport, getDefaultEnvironment } = await import(
      '@modelcontextprotocol/sdk/client/stdio.js'
    );
    // The SDK passes only a safe subset of the parent environment; the config adds to it explicitly.
    return new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: { ...getDefaultEnvironment(), ...config.env },
      cwd: config.cwd,
      stderr: 'pipe',
    });
  }
  if (config.type === 'http') {
    const { StreamableHTTPClientTransport } = await import(
      '@modelcontextprotocol/sdk/client/streamableHttp.js'
    );
    return new StreamableHTTPClientTransport(new URL(config.url), {
      requestInit: { headers: config.headers },
    });
  }
  const { SSEClientTransport } = await import('@modelcontextprotocol/sdk/client/sse.js');
  return new SSEClientTransport(new URL(config.url), { requestInit: { headers: config.headers } });
}
