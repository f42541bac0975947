import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import type { ElicitationRequest } from '../../src/mcp/server-connection.js';

/** A server whose `ask` tool elicits a form with defaults and reports what came back. */
function askingServer(seen: { capabilities?: unknown }) {
  return {
    type: 'transport' as const,
    createTransport: async () => {
      const server = new Server({ name: 'asking', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.oninitialized = () => {
        seen.capabilities = server.getClientCapabilities();
      };
      server.setRequestHandler(ListToolsRequestSchema, () => ({
        tools: [{ name: 'ask', inputSchema: { type: 'object' as const } }],
      }));
      server.setRequestHandler(CallToolRequestSchema, async () => {
        const answer = await server.request(
          {
            method: 'elicitation/create',
            params: {
              message: 'Which repository?',
              requestedSchema: {
                type: 'object',
                properties: {
                  repository: { type: 'string', default: 'acme' },
                  depth: { type: 'integer', default: 2 },
                },
              },
            },
          },
          ElicitResultSchema,
        );
        return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      return clientSide;
    },
  };
}

function registry(options: Omit<McpServerRegistryOptions, 'mcpServers'>, seen: { capabilities?: unknown }) {
  const servers = new McpServerRegistry({ mcpServers: { asking: askingServer(seen) }, ...options });
  onTestFinished(() => servers.close());
  return servers;
}

describe('elicitation', () => {
  it('goes to the host handler with the server named, and the form defaults fill what the user left out', async () => {
    const seen: { capabilities?: unknown } = {};
    const requests: ElicitationRequest[] = [];
    const servers = registry(
      {
        elicitation: async (request) => {
          requests.push(request);
          return { action: 'accept', content: { depth: 5 } };
        },
      },
      seen,
    );
    const result = await servers.callTool('asking', 'ask');
    expect(seen.capabilities).toMatchObject({ elicitation: { form: {} } });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ server: 'asking', params: { message: 'Which repository?' } });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({
      action: 'accept',
      content: { repository: 'acme', depth: 5 },
    });
  });

  it('without a handler the capability is not declared, and a server that asks anyway is refused', async () => {
    const seen: { capabilities?: unknown } = {};
    const servers = registry({}, seen);
    const result = await servers.callTool('asking', 'ask').catch((error: unknown) => error);
    expect(seen.capabilities).toEqual({});
    expect(result).toMatchObject({ server: 'asking' });
  });
});
