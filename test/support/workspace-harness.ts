import { onTestFinished } from 'vitest';
import { startWorkspaceFixture, type WorkspaceServerOptions } from '../../fixtures/index.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';

export type TransportKind = 'memory' | 'http';

/** A workspace fixture and a registry naming it `workspace`; both closed when the test finishes. */
export async function startWorkspaceRegistry(
  transport: TransportKind,
  options: WorkspaceServerOptions = {},
  registry: Omit<McpServerRegistryOptions, 'mcpServers'> = {},
) {
  const fixture = await startWorkspaceFixture({ transport, ...options });
  const servers = new McpServerRegistry({ mcpServers: { workspace: fixture.serverConfig }, ...registry });
  onTestFinished(async () => {
    await servers.close();
    await fixture.close();
  });
  return { fixture, servers };
}
