import { resolve } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import { startScriptedHttp } from './support/scripted-server.js';

const repositoryRoot = resolve(import.meta.dirname, '../..');

/** A stdio server spawned as a child process, its environment passed explicitly. */
function stdioConfig(script: string, args: string[] = [], env: Record<string, string> = {}) {
  return { command: process.execPath, args: ['--import', 'tsx', script, ...args], cwd: repositoryRoot, env };
}

function registry(options: McpServerRegistryOptions) {
  const servers = new McpServerRegistry({ reconnect: false, ...options });
  onTestFinished(() => servers.close());
  return servers;
}

const loopingOptions = JSON.stringify({
  loopingCursor: true,
  resources: [{ uri: 'x://same', name: 'same' }],
});

describe('McpServerRegistry over stdio (a child process)', () => {
  it('follows cursors across three pages of the GitNexus fixture and keeps each nextCursor', async () => {
    const servers = registry({
      mcpServers: {
        gitnexus: stdioConfig('fixtures/gitnexus/serve-stdio.ts', [
          '--page-size',
          '3',
          '--extra-resources',
          '7',
        ]),
      },
    });
    const first = await servers.listResources('gitnexus');
    const second = await servers.listResources('gitnexus', { cursor: first.nextCursor });
    const third = await servers.listResources('gitnexus', { cursor: second.nextCursor });
    expect([first, second, third].map((page) => page.resources.length)).toEqual([3, 3, 3]);
    expect([first.nextCursor, second.nextCursor]).toEqual([expect.any(String), expect.any(String)]);
    expect(third.nextCursor).toBeUndefined();
    const all = await servers.listResources('gitnexus', { all: true });
    expect(all.resources.map((resource) => resource.uri)).toEqual(
      [first, second, third].flatMap((page) => page.resources.map((resource) => resource.uri)),
    );
    expect(servers.status('gitnexus')).toMatchObject({
      transport: 'stdio',
      state: 'connected',
      resourceCount: 9,
      serverInfo: { name: expect.any(String) },
    });
  });

  it('a protocol error keeps its JSON-RPC code and data', async () => {
    const servers = registry({
      mcpServers: {
        scripted: stdioConfig('test/mcp/support/serve-scripted-stdio.ts', [], {
          SCRIPTED_SERVER_OPTIONS: JSON.stringify({ prompts: [{ name: 'known' }] }),
        }),
      },
    });
    await expect(servers.readResource('scripted', 'scripted://missing')).rejects.toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
      // Sent as -32002: the v2 client names a not-found by its 2026-07-28 code.
      rpcCode: -32602,
      rpcData: { uri: 'scripted://missing' },
    });
    await expect(servers.getPrompt('scripted', 'unknown')).rejects.toMatchObject({
      code: 'PROTOCOL_ERROR',
      rpcCode: -32602,
      rpcData: { name: 'unknown' },
    });
  });

  it('a server whose cursors repeat is stopped by the guard', async () => {
    const servers = registry({
      mcpServers: {
        looping: stdioConfig('test/mcp/support/serve-scripted-stdio.ts', [], {
          SCRIPTED_SERVER_OPTIONS: loopingOptions,
        }),
      },
    });
    await expect(servers.listResources('looping', { all: true })).rejects.toMatchObject({
      code: 'PAGINATION_LOOP',
      value: 'again',
    });
  });
});

describe("a stdio server's message size (maxResponseBytes, the bytes awaiting a newline)", () => {
  const megabyte = 1024 * 1024;
  const blobServer = (blobs: Record<string, number>) =>
    stdioConfig('test/mcp/support/serve-scripted-stdio.ts', [], {
      SCRIPTED_BLOBS: JSON.stringify(blobs),
      SCRIPTED_SERVER_OPTIONS: JSON.stringify({
        contents: { 'scripted://small': [{ uri: 'scripted://small', text: 'small and fine' }] },
      }),
    });

  it('a read of maxReadBytes (8 MiB) arrives whole with the default limits: its base64 line is 10.7 MiB', async () => {
    const servers = registry({ mcpServers: { scripted: blobServer({ 'scripted://eight': 8 * megabyte }) } });
    const read = await servers.readResource('scripted', 'scripted://eight');
    const [content] = read.contents;
    expect(content !== undefined && 'blob' in content && Buffer.from(content.blob, 'base64').length).toBe(
      8 * megabyte,
    );
    expect(read.truncation).toBeUndefined();
  });

  it('a message past maxResponseBytes fails its read with LIMIT_EXCEEDED, once, and the next read opens a new session', async () => {
    const servers = registry({
      mcpServers: { scripted: blobServer({ 'scripted://three': 3 * megabyte }) },
      maxReadBytes: megabyte,
      maxResponseBytes: 2 * megabyte,
    });
    let sessions = 0;
    servers.on('session-opened', () => {
      sessions++;
    });
    await expect(servers.readResource('scripted', 'scripted://three')).rejects.toMatchObject({
      code: 'LIMIT_EXCEEDED',
      server: 'scripted',
      field: 'maxResponseBytes',
      value: 2 * megabyte,
      message: expect.stringMatching(/over 2097152 bytes \(maxResponseBytes\)/),
    });
    // Not sent again on a new session: the same read would only overflow again.
    expect(sessions).toBe(1);
    const small = await servers.readResource('scripted', 'scripted://small');
    expect(small.contents[0]).toMatchObject({ text: 'small and fine' });
    expect(sessions).toBe(2);
  });
});

describe('McpServerRegistry over Streamable HTTP', () => {
  it('follows cursors across three pages with { all: true }', async () => {
    const resources = Array.from({ length: 7 }, (_, index) => ({
      uri: `scripted://r/${index}`,
      name: `r${index}`,
    }));
    const host = await startScriptedHttp({ resources, pageSize: 3 });
    onTestFinished(() => host.close());
    const servers = registry({ mcpServers: { scripted: { type: 'http', url: `${host.origin}/mcp` } } });
    const first = await servers.listResources('scripted');
    expect(first).toMatchObject({ nextCursor: '3' });
    const all = await servers.listResources('scripted', { all: true });
    expect(all.resources.map((resource) => resource.uri)).toEqual(resources.map((resource) => resource.uri));
  });

  it('a server whose cursors repeat is stopped by the guard', async () => {
    const host = await startScriptedHttp(JSON.parse(loopingOptions));
    onTestFinished(() => host.close());
    const servers = registry({ mcpServers: { looping: { type: 'http', url: `${host.origin}/mcp` } } });
    await expect(servers.listResources('looping', { all: true })).rejects.toMatchObject({
      code: 'PAGINATION_LOOP',
      value: 'again',
    });
  });
});
