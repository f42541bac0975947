import { describe, expect, it, onTestFinished } from 'vitest';
import { aggregateResources } from '../../src/mcp/aggregate-resources.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { scriptedMemoryConfig } from './support/scripted-server.js';

const pngBytes = Buffer.alloc(300, 7);
const contents = {
  'doc://mixed': [
    {
      uri: 'doc://mixed',
      mimeType: 'text/markdown',
      text: 'héllo wörld '.repeat(20),
      _meta: { revision: 'r7' },
    },
    { uri: 'doc://mixed#logo', mimeType: 'image/png', blob: pngBytes.toString('base64') },
  ],
};

function scriptedRegistry() {
  const servers = new McpServerRegistry({
    mcpServers: {
      docs: scriptedMemoryConfig({
        contents,
        resources: [
          {
            uri: 'doc://b',
            name: 'b',
            mimeType: 'text/markdown',
            size: 20,
            annotations: { audience: ['assistant'], priority: 0.5, lastModified: '2025-01-01T00:00:00Z' },
            _meta: { owner: 'docs-team' },
          },
          { uri: 'doc://a', name: 'a', mimeType: 'application/json', size: 10 },
        ],
        prompts: [{ name: 'review', arguments: [{ name: 'file', required: true }, { name: 'tone' }] }],
      }),
      more: scriptedMemoryConfig({
        resources: [{ uri: 'more://c', name: 'c', mimeType: 'text/plain', size: 5 }],
      }),
      broken: { type: 'transport', createTransport: () => Promise.reject(new Error('no such server')) },
    },
    reconnect: false,
  });
  onTestFinished(() => servers.close());
  return servers;
}

describe('readResource', () => {
  it('keeps every content item, text and blob, with its mimeType and _meta', async () => {
    const servers = scriptedRegistry();
    const result = await servers.readResource('docs', 'doc://mixed');
    expect(result.contents).toEqual(contents['doc://mixed']);
    expect(result.truncation).toBeUndefined();
  });

  it('listings keep annotations, size and _meta as the server sent them', async () => {
    const servers = scriptedRegistry();
    const { resources } = await servers.listResources('docs');
    expect(resources[0]).toEqual({
      uri: 'doc://b',
      name: 'b',
      mimeType: 'text/markdown',
      size: 20,
      annotations: { audience: ['assistant'], priority: 0.5, lastModified: '2025-01-01T00:00:00Z' },
      _meta: { owner: 'docs-team' },
    });
  });

  it('a byte cap cuts text on a character boundary, empties a blob that does not fit, and says so', async () => {
    const servers = scriptedRegistry();
    const result = await servers.readResource('docs', 'doc://mixed', { maxBytes: 101 });
    const [text, image] = result.contents as unknown as [
      { text: string; _meta: unknown },
      { blob: string; mimeType: string },
    ];
    expect(Buffer.byteLength(text.text)).toBeLessThanOrEqual(101);
    expect(text.text).not.toContain('\uFFFD');
    expect(text._meta).toEqual({ revision: 'r7' });
    expect(image).toMatchObject({ mimeType: 'image/png', blob: '' });
    expect(result.truncation).toEqual({
      maxBytes: 101,
      originalBytes: Buffer.byteLength(contents['doc://mixed'][0]?.text ?? '') + 300,
      keptBytes: Buffer.byteLength(text.text),
      items: [
        {
          index: 0,
          uri: 'doc://mixed',
          mimeType: 'text/markdown',
          originalBytes: 280,
          keptBytes: Buffer.byteLength(text.text),
        },
        { index: 1, uri: 'doc://mixed#logo', mimeType: 'image/png', originalBytes: 300, keptBytes: 0 },
      ],
    });
  });

  it('bad input is INVALID_OPTION naming the field', async () => {
    const servers = scriptedRegistry();
    await expect(servers.readResource('docs', 'doc://mixed', { maxBytes: -1 })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      field: 'options.maxBytes',
    });
  });
});

describe('getPrompt', () => {
  it('checks required arguments before the call', async () => {
    const servers = scriptedRegistry();
    await expect(servers.getPrompt('docs', 'review', { tone: 'kind' })).rejects.toMatchObject({
      code: 'PROMPT_ARGUMENT_MISSING',
      field: 'arguments.file',
      server: 'docs',
    });
  });

  it('keeps messages and roles for valid arguments', async () => {
    const servers = scriptedRegistry();
    const result = await servers.getPrompt('docs', 'review', { file: 'a.ts' });
    expect(result.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(result.messages[0]?.content).toEqual({ type: 'text', text: 'run {"file":"a.ts"}' });
  });
});

describe('listTools and callTool', () => {
  it('share the session with resources and prompts', async () => {
    const servers = scriptedRegistry();
    const { tools } = await servers.listTools('docs');
    expect(tools.map((tool) => tool.name)).toEqual(['echo', 'delete_everything']);
    const result = await servers.callTool('docs', 'echo', { say: 'hi' });
    expect(result.content).toEqual([{ type: 'text', text: 'echo {"say":"hi"}' }]);
    expect(servers.status('docs')).toMatchObject({
      state: 'connected',
      transport: 'transport',
      serverInfo: { name: 'scripted', version: '1.0.0' },
      instructions: 'scripted for tests',
      capabilities: { tools: {}, resources: {}, prompts: {} },
      lastUsedAt: expect.any(String),
    });
  });
});

describe('aggregateResources', () => {
  it('lists across servers, reports a failing one, and filters, sorts and windows', async () => {
    const servers = scriptedRegistry();
    const everything = await aggregateResources(servers, { sort: 'uri' });
    expect(everything.resources.map((resource) => `${resource.server} ${resource.uri}`)).toEqual([
      'docs doc://a',
      'docs doc://b',
      'more more://c',
    ]);
    expect(everything.errors).toEqual([
      { server: 'broken', code: 'CONNECT_FAILED', message: expect.any(String) },
    ]);
    const text = await aggregateResources(servers, { mimeTypes: ['text/*'], sort: 'size', order: 'desc' });
    expect(text.resources.map((resource) => resource.uri)).toEqual(['doc://b', 'more://c']);
    const window = await aggregateResources(servers, {
      servers: ['docs', 'more'],
      sort: 'name',
      limit: 1,
      offset: 1,
    });
    expect(window).toMatchObject({ total: 3, errors: [], resources: [{ uri: 'doc://b', server: 'docs' }] });
    expect(servers.status('docs').resourceCount).toBe(2);
  });
});
