import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { startFaultFixture } from '../../fixtures/index.js';
import { ContextError } from '../../src/errors.js';
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
    expect(error).toMatchObject({ code: 'RESOURCE_NOT_FOUND', rpcCode: -32602 });
    // The server sent -32002 with data.uri; the v2 client reads it as resource-not-found and
    // names it by the code the 2026-07-28 revision gives it, -32602 (both are accepted as not-found).
    const message = (error as Error).message;
    expect(message.match(/MCP error -32602/g)).toHaveLength(1);
    expect(message).toBe('resources/read on server "scripted" failed: MCP error -32602: Resource not found');
  });
});

describe('a server that answers badly (issue 12, item 9)', () => {
  const resources = {
    'fault://wrong-type': { kind: 'wrong-type' },
    'fault://missing-fields': { kind: 'missing-fields' },
    'fault://bad-base64': { kind: 'bad-base64' },
    'fault://http-500': { kind: 'http-status', status: 500 },
    'fault://html-200': { kind: 'http-status', status: 200 },
    'fault://not-json': { kind: 'not-json' },
  } as const;

  async function faultRegistry(transport: 'memory' | 'http') {
    const fixture = await startFaultFixture(transport, { resources });
    const servers = new McpServerRegistry({ mcpServers: { faults: fixture.serverConfig }, reconnect: false });
    onTestFinished(async () => {
      await servers.close();
      await fixture.close();
    });
    return servers;
  }

  async function failureOf(servers: McpServerRegistry, uri: string) {
    const error = await servers.readResource('faults', uri).catch((caught: unknown) => caught);
    expect(ContextError.isInstance(error)).toBe(true);
    return error as ContextError;
  }

  it.each(['memory', 'http'] as const)(
    'a result that fails the MCP schema is INVALID_RESULT naming the first issue, on one line (%s)',
    async (transport) => {
      const servers = await faultRegistry(transport);
      const wrongType = await failureOf(servers, 'fault://wrong-type');
      expect(wrongType).toMatchObject({ code: 'INVALID_RESULT', server: 'faults' });
      expect(wrongType.message).toBe(
        'resources/read on server "faults" failed: invalid result: contents: expected array, received string',
      );
      const missing = await failureOf(servers, 'fault://missing-fields');
      expect(missing.code).toBe('INVALID_RESULT');
      expect(missing.message).toMatch(
        /^resources\/read on server "faults" failed: invalid result: contents\[0\]/,
      );
      expect(missing.message).not.toContain('\n');
      // The session survives a bad answer: the next read works.
      expect((await failureOf(servers, 'fault://missing')).code).toBe('RESOURCE_NOT_FOUND');
    },
  );

  it('a blob that is not base64 is UNSUPPORTED_CONTENT, as the converters say of one', async () => {
    const servers = await faultRegistry('memory');
    const error = await failureOf(servers, 'fault://bad-base64');
    expect(error).toMatchObject({ code: 'UNSUPPORTED_CONTENT', server: 'faults' });
    expect(error.message).toBe(
      'resources/read on server "faults" failed: contents[0].blob is not valid base64',
    );
  });

  it('HTTP 500 with an HTML page is HTTP_ERROR with the status and a few words of the page', async () => {
    const servers = await faultRegistry('http');
    const error = await failureOf(servers, 'fault://http-500');
    expect(error).toMatchObject({ code: 'HTTP_ERROR', httpStatus: 500, server: 'faults' });
    expect(error.message).toBe(
      'resources/read on server "faults" failed: HTTP 500: Internal Server Error upstream failed',
    );
  });

  it('an HTML page with 200 is HTTP_ERROR naming the status and the media type', async () => {
    const servers = await faultRegistry('http');
    const error = await failureOf(servers, 'fault://html-200');
    expect(error).toMatchObject({ code: 'HTTP_ERROR', httpStatus: 200 });
    expect(error.message).toBe(
      'resources/read on server "faults" failed: HTTP 200 with text/html instead of JSON-RPC',
    );
  });

  it('a JSON reply that is not JSON is INVALID_RESULT', async () => {
    const servers = await faultRegistry('http');
    const error = await failureOf(servers, 'fault://not-json');
    expect(error.code).toBe('INVALID_RESULT');
    expect(error.message).toMatch(/^resources\/read on server "faults" failed: the reply is not JSON/);
    expect(error.message).not.toContain('\n');
  });

  it('a listing of the wrong type is INVALID_RESULT', async () => {
    const fixture = await startFaultFixture('memory', { listing: 'wrong-type' });
    const servers = new McpServerRegistry({ mcpServers: { faults: fixture.serverConfig }, reconnect: false });
    onTestFinished(async () => {
      await servers.close();
      await fixture.close();
    });
    await expect(servers.listResources('faults')).rejects.toMatchObject({
      code: 'INVALID_RESULT',
      message:
        'resources/list on server "faults" failed: invalid result: resources: expected array, received string',
    });
  });

  it('a long multi-line JSON-RPC error message is said on one line, cut short', async () => {
    const fixture = await startFaultFixture('memory', {
      resources: {
        'fault://noisy': { kind: 'rpc-error', code: -32603, message: `line one\n${'x'.repeat(5000)}` },
      },
    });
    const servers = new McpServerRegistry({ mcpServers: { faults: fixture.serverConfig }, reconnect: false });
    onTestFinished(async () => {
      await servers.close();
      await fixture.close();
    });
    const error = await failureOf(servers, 'fault://noisy');
    expect(error).toMatchObject({ code: 'PROTOCOL_ERROR', rpcCode: -32603 });
    expect(error.message).not.toContain('\n');
    expect(error.message.length).toBeLessThan(300);
    expect(error.message).toMatch(
      /^resources\/read on server "faults" failed: MCP error -32603: line one x+…$/,
    );
  });

  it('connecting to a server that answers initialize with an HTML page is CONNECT_FAILED with the status, on one line', async () => {
    const http = createServer((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' }).end('<html>\n<h1>Bad gateway</h1>\n</html>');
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    const servers = new McpServerRegistry({ mcpServers: { proxy: { type: 'http', url } }, reconnect: false });
    onTestFinished(async () => {
      await servers.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    });
    await expect(servers.listResources('proxy')).rejects.toMatchObject({
      code: 'CONNECT_FAILED',
      httpStatus: 502,
      message: 'could not connect to server "proxy": HTTP 502: Bad gateway',
    });
  });
});
