import { describe, expect, it } from 'vitest';
import { MemoryAuditSink } from '../../src/audit/memory-audit-sink.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { createExplorationTools } from '../../src/tools/create-exploration-tools.js';
import { sharedTokenizer, startProviderHarness, type TransportKind } from '../support/provider-harness.js';

const contextUri = 'gitnexus://repo/acme-shop/context';

function textOf(result: { content: { text: string }[] }): string {
  return result.content.map((item) => item.text).join('');
}

describe.each<TransportKind>(['memory', 'http'])('exploration tools over %s', (transport) => {
  it('describes both tools with JSON Schemas of their arguments', async () => {
    const { servers, policy } = await startProviderHarness(transport);
    const tools = createExplorationTools({
      servers,
      policy,
      pipelineId: 'support',
      tokenizer: sharedTokenizer,
      maxTokens: 2000,
    });
    expect(tools.definitions.map((definition) => definition.name)).toEqual([
      'list_mcp_resources',
      'read_mcp_resource',
    ]);
    const read = tools.definitions[1]?.inputSchema as {
      required: string[];
      properties: Record<string, unknown>;
      additionalProperties: boolean;
    };
    expect(read.required).toEqual(['server', 'uri']);
    expect(Object.keys(read.properties)).toEqual(['server', 'uri', 'offset', 'maxTokens']);
    expect(read.additionalProperties).toBe(false);
  });

  it('read_mcp_resource continues exactly where a provide() truncation marker cut', async () => {
    const { servers, policy, provider } = await startProviderHarness(transport, {
      provider: { budget: { maxTokens: 400 } },
    });
    const { blocks, trace } = await provider.provide({
      pipelineId: 'support',
      message: { attachments: [{ server: 'gitnexus', uri: contextUri }] },
    });
    expect(trace.entries[0]?.status).toBe('truncated');
    const block = blocks.find((candidate) => candidate.kind === 'resource');
    const marker = /\n\[truncated: [^\]]*read_mcp_resource (\{[^\n]*\})\]/.exec(block?.text ?? '');
    expect(marker).not.toBeNull();
    const pointer = JSON.parse(marker?.[1] ?? '{}') as { server: string; uri: string; offset: number };
    expect(pointer).toMatchObject({ server: 'gitnexus', uri: contextUri });
    // What the provider showed: between the frame's opening line and the marker.
    const blockText = block?.text ?? '';
    const shown = blockText.slice(blockText.indexOf('>\n') + 2, marker?.index);

    const tools = createExplorationTools({
      servers,
      policy,
      pipelineId: 'support',
      tokenizer: sharedTokenizer,
      maxTokens: 4000,
    });
    const whole = await tools.execute('read_mcp_resource', { server: 'gitnexus', uri: contextUri });
    const rest = await tools.execute('read_mcp_resource', pointer);
    expect(rest.isError).toBeUndefined();
    const body = whole.structuredContent?.content as string;
    const continuation = rest.structuredContent?.content as string;
    expect(body.startsWith(shown)).toBe(true);
    expect(shown + continuation).toBe(body);
    expect(rest.structuredContent).toMatchObject({
      offset: pointer.offset,
      endOffset: rest.structuredContent?.totalTokens,
    });
    expect(rest.structuredContent?.nextOffset).toBeUndefined();
  });

  it('every answer stays within the token cap, and a cut answer names the offset to read on from', async () => {
    const { servers, policy } = await startProviderHarness(transport);
    const tools = createExplorationTools({
      servers,
      policy,
      pipelineId: 'support',
      tokenizer: sharedTokenizer,
      maxTokens: 300,
    });
    const first = await tools.execute('read_mcp_resource', {
      server: 'gitnexus',
      uri: contextUri,
      maxTokens: 5000,
    });
    expect(await sharedTokenizer.count(textOf(first))).toBeLessThanOrEqual(300);
    const nextOffset = first.structuredContent?.nextOffset as number;
    expect(textOf(first)).toContain(
      `read_mcp_resource {"server":"gitnexus","uri":"${contextUri}","offset":${nextOffset}}`,
    );

    // Reading on, window by window, covers the body exactly once.
    let offset = nextOffset;
    let assembled = first.structuredContent?.content as string;
    for (let step = 0; offset !== undefined && step < 20; step++) {
      const next = await tools.execute('read_mcp_resource', {
        server: 'gitnexus',
        uri: contextUri,
        offset,
        maxTokens: 150,
      });
      expect(await sharedTokenizer.count(textOf(next))).toBeLessThanOrEqual(150);
      assembled += next.structuredContent?.content as string;
      offset = next.structuredContent?.nextOffset as number;
    }
    const whole = createExplorationTools({
      servers,
      policy,
      pipelineId: 'support',
      tokenizer: sharedTokenizer,
      maxTokens: 5000,
    });
    const all = await whole.execute('read_mcp_resource', { server: 'gitnexus', uri: contextUri });
    expect(assembled).toBe(all.structuredContent?.content);

    const listing = await createExplorationTools({
      servers,
      policy,
      pipelineId: 'support',
      tokenizer: sharedTokenizer,
      maxTokens: 60,
    }).execute('list_mcp_resources', {});
    expect(await sharedTokenizer.count(textOf(listing))).toBeLessThanOrEqual(60);
    expect(listing.structuredContent).toMatchObject({
      omittedResources: expect.any(Number),
      note: expect.stringContaining('token cap'),
    });
  });

  it('lists what the pipeline may read, per server, with pagination by cursor', async () => {
    const { servers, policy } = await startProviderHarness(transport, { fixture: { pageSize: 1 } });
    const tools = createExplorationTools({
      servers,
      policy,
      pipelineId: 'support',
      tokenizer: sharedTokenizer,
      maxTokens: 2000,
    });
    const first = await tools.execute('list_mcp_resources', { server: 'gitnexus' });
    const page = first.structuredContent as {
      servers: { server: string; resources: { uri: string }[]; nextCursor?: string }[];
    };
    expect(page.servers[0]?.resources.map((resource) => resource.uri)).toEqual(['gitnexus://repos']);
    const second = await tools.execute('list_mcp_resources', {
      server: 'gitnexus',
      cursor: page.servers[0]?.nextCursor,
    });
    expect(
      (second.structuredContent as typeof page).servers[0]?.resources.map((resource) => resource.uri),
    ).toEqual(['gitnexus://setup']);
  });

  it('a pipeline the policy does not know is UNKNOWN_PIPELINE when the tools are made, as in a provider turn', async () => {
    const { servers, policy } = await startProviderHarness(transport);
    const make = (pipelineId: string, agentId?: string) =>
      createExplorationTools({
        servers,
        policy,
        pipelineId,
        ...(agentId !== undefined && { agentId }),
        tokenizer: sharedTokenizer,
        maxTokens: 2000,
      });
    expect(() => make('suport')).toThrow(
      expect.objectContaining({
        code: 'UNKNOWN_PIPELINE',
        field: 'pipelineId',
        value: 'suport',
        message: expect.stringContaining('did you mean "support"?'),
      }),
    );
    expect(() => make('support', 'ghost')).toThrow(expect.objectContaining({ code: 'UNKNOWN_AGENT' }));
    expect(make('support').definitions).toHaveLength(2);
  });

  it('a pipeline not bound to the server is denied, audited as that pipeline, and nothing is read', async () => {
    const audit = new MemoryAuditSink();
    const { servers, fixture } = await startProviderHarness(transport);
    const { McpServerRegistry } = await import('../../src/mcp/mcp-server-registry.js');
    const audited = new McpServerRegistry({ mcpServers: { gitnexus: fixture.serverConfig }, audit });
    // "stranger" is a known pipeline, bound elsewhere: denied gitnexus, not unknown.
    const policy = new AccessPolicy({
      bindings: { support: { servers: ['gitnexus'] }, stranger: { servers: ['docs'] } },
    });
    const tools = createExplorationTools({
      servers: audited,
      policy,
      pipelineId: 'stranger',
      tokenizer: sharedTokenizer,
      maxTokens: 2000,
    });
    try {
      const reads = fixture.readCount();
      const read = await tools.execute('read_mcp_resource', { server: 'gitnexus', uri: 'gitnexus://repos' });
      expect(read).toMatchObject({ isError: true, structuredContent: { error: { code: 'POLICY_DENIED' } } });
      const listed = await tools.execute('list_mcp_resources', {});
      expect(listed.structuredContent).toEqual({ servers: [] });
      const named = await tools.execute('list_mcp_resources', { server: 'gitnexus' });
      expect(named.structuredContent).toMatchObject({ error: { code: 'POLICY_DENIED' } });
      expect(fixture.readCount()).toBe(reads);
      expect(audit.records).toEqual([
        expect.objectContaining({
          actor: { kind: 'pipeline', pipelineId: 'stranger' },
          operation: 'resources/read',
          status: 'denied',
        }),
        expect.objectContaining({
          actor: { kind: 'pipeline', pipelineId: 'stranger' },
          operation: 'resources/list',
          status: 'denied',
        }),
      ]);
    } finally {
      await audited.close();
      void servers;
    }
  });

  it.each([
    [{ uri: 'gitnexus://repos' }, 'server'],
    [{ server: 'gitnexus', uri: 'gitnexus://repos', offset: -1 }, 'offset'],
    [{ server: 'gitnexus', uri: 'gitnexus://repos', offset: 1.5 }, 'offset'],
    [{ server: 'gitnexus', uri: 'gitnexus://repos', maxTokens: '10' }, 'maxTokens'],
    [{ server: 'gitnexus', uri: 'gitnexus://repos', extra: true }, 'extra'],
    [{ server: 'gitnexus', uri: 'gitnexus://repos', offset: 1_000_000 }, 'offset'],
    ['not an object', 'arguments'],
  ])('read_mcp_resource answers bad arguments %j with a tool error naming "%s"', async (args, field) => {
    const { servers, policy } = await startProviderHarness(transport);
    const tools = createExplorationTools({
      servers,
      policy,
      pipelineId: 'support',
      tokenizer: sharedTokenizer,
      maxTokens: 2000,
    });
    const result = await tools.execute('read_mcp_resource', args);
    expect(result).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'INVALID_TOOL_ARGUMENT', field } },
    });
    expect(textOf(result)).toContain(field);
  });

  it('answers an unknown tool and a cursor without a server with tool errors', async () => {
    const { servers, policy } = await startProviderHarness(transport);
    const tools = createExplorationTools({
      servers,
      policy,
      pipelineId: 'support',
      tokenizer: sharedTokenizer,
      maxTokens: 2000,
    });
    expect(await tools.execute('delete_mcp_resource', {})).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'UNKNOWN_TOOL' } },
    });
    expect(await tools.execute('list_mcp_resources', { cursor: 'x' })).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'INVALID_TOOL_ARGUMENT', field: 'cursor' } },
    });
  });
});
