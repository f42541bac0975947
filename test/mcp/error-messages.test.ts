import { afterEach, describe, expect, it } from 'vitest';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { scriptedMemoryConfig } from './support/scripted-server.js';

let registry: McpServerRegistry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

describe('errors a server sends', () => {
  it('say the JSON-RPC code once, not "MCP error -32002: MCP error -32002:"', async () => {
    registry = new McpServerRegistry({ mcpServers: { scripted: scriptedMemoryConfig() } });
    const error = await registry.readResource('scripted', 'x://missing').catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'RESOURCE_NOT_FOUND', rpcCode: -32002 });
    const message = (error as Error).message;
    expect(message.match(/MCP error -32002/g)).toHaveLength(1);
    expect(message).toBe('resources/read on server "scripted" failed: MCP error -32002: Resource not found');
  });
});
