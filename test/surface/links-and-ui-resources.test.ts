import { describe, expect, it, onTestFinished } from 'vitest';
import { startWorkspaceFixture } from '../../fixtures/index.js';
import { attachmentsFromLinks } from '../../src/links/attachments-from-links.js';
import { renderToolResult } from '../../src/links/render-tool-result.js';
import type { AccessPolicyOptions } from '../../src/policy/access-policy.js';
import { runPromptCommand } from '../../src/prompts/run-prompt-command.js';
import { createExplorationTools } from '../../src/tools/create-exploration-tools.js';
import { sharedTokenizer, startProviderHarness, type TransportKind } from '../support/provider-harness.js';

async function startWithWorkspace(transport: TransportKind, policy?: AccessPolicyOptions) {
  const workspace = await startWorkspaceFixture({ transport });
  onTestFinished(() => workspace.close());
  const harness = await startProviderHarness(transport, {
    extraServers: { workspace: workspace.serverConfig },
    ...(policy && { policy }),
  });
  return { ...harness, workspace };
}

describe.each(['memory', 'http'] as const)('resource links and UI resources over %s', (transport) => {
  it('a prompt’s resource links are named, not read, and become the handles attachmentsFromLinks returns', async () => {
    const { servers, workspace } = await startWithWorkspace(transport);
    const result = await runPromptCommand(servers, '/mcp__workspace__triage project=apollo');
    expect(result.links.map((link) => link.uri)).toEqual([
      'workspace://project/apollo/issue/7',
      'workspace://project/apollo/issue/8',
    ]);
    const named = result.messages[1]?.content[0];
    expect(named).toEqual({
      type: 'text',
      text: '<mcp-resource-link server="workspace" uri="workspace://project/apollo/issue/7" name="apollo #7" mime="text/markdown" read="not yet: the host may attach it"/>',
    });
    // Named only: nothing was read.
    expect(workspace.readCount('workspace://project/apollo/issue/7')).toBe(0);
    expect(attachmentsFromLinks(result, { maxTokens: 300 })).toEqual([
      { server: 'workspace', uri: 'workspace://project/apollo/issue/7', maxTokens: 300 },
      { server: 'workspace', uri: 'workspace://project/apollo/issue/8', maxTokens: 300 },
    ]);
  });

  it('links passed on as message attachments are read and injected like any attachment, cache included', async () => {
    const { servers, provider, workspace } = await startWithWorkspace(transport);
    const tool = renderToolResult(
      'workspace',
      await servers.callTool('workspace', 'find_issues', { project: 'apollo' }),
    );
    expect(tool.text).toContain('2 open issue(s) in apollo.');
    expect(tool.text).toContain('uri="workspace://project/apollo/issue/8"');
    const attachments = attachmentsFromLinks(tool);
    const first = await provider.provide({ pipelineId: 'support', message: { attachments } });
    expect(first.trace.entries.map((entry) => [entry.uri, entry.status, entry.cache])).toEqual([
      ['workspace://project/apollo/issue/7', 'injected', 'miss'],
      ['workspace://project/apollo/issue/8', 'injected', 'miss'],
    ]);
    expect(first.blocks.map((block) => block.text).join('')).toContain('# apollo #8');
    const second = await provider.provide({ pipelineId: 'support', message: { attachments } });
    expect(second.trace.entries.map((entry) => entry.cache)).toEqual(['hit', 'hit']);
    expect(workspace.readCount('workspace://project/apollo/issue/8')).toBe(1);
  });

  it('a link to a resource the pipeline may not read is denied like any attachment', async () => {
    const { servers, provider, workspace } = await startWithWorkspace(transport, {
      bindings: {
        support: {
          servers: ['gitnexus', { name: 'workspace', resources: ['workspace://project/apollo/issue/7'] }],
        },
      },
    });
    const result = await runPromptCommand(servers, '/mcp__workspace__triage project=apollo');
    const { trace } = await provider.provide({
      pipelineId: 'support',
      message: { attachments: attachmentsFromLinks(result) },
    });
    expect(trace.entries.map((entry) => entry.status)).toEqual(['injected', 'denied']);
    expect(workspace.readCount('workspace://project/apollo/issue/8')).toBe(0);
  });

  it('an MCP Apps UI resource is never injected: unsupported, with the reason, nothing of its HTML in context', async () => {
    const { provider, attachments } = await startWithWorkspace(transport);
    await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'workspace',
      uri: 'ui://workspace/dashboard',
    });
    const { blocks, trace } = await provider.provide({ pipelineId: 'support' });
    expect(trace.entries[0]).toMatchObject({
      uri: 'ui://workspace/dashboard',
      status: 'unsupported',
      omittedContents: [expect.objectContaining({ reason: expect.stringContaining('MCP Apps UI resource') })],
    });
    expect(blocks.map((block) => block.text).join('')).not.toContain('<div id="app">');
  });

  it('exploration tools leave UI resources out of listings by default, and count them', async () => {
    const { servers, policy } = await startWithWorkspace(transport);
    const options = { servers, policy, pipelineId: 'support', tokenizer: sharedTokenizer, maxTokens: 4000 };
    const listed = await createExplorationTools(options).execute('list_mcp_resources', {
      server: 'workspace',
    });
    const entry = (
      listed.structuredContent as { servers: { resources: { uri: string }[]; uiResourcesHidden?: number }[] }
    ).servers[0];
    expect(entry?.resources.map((resource) => resource.uri)).not.toContain('ui://workspace/dashboard');
    expect(entry?.resources.map((resource) => resource.uri)).toContain('workspace://guide');
    expect(entry?.uiResourcesHidden).toBe(1);
    const all = await createExplorationTools({ ...options, includeUiResources: true }).execute(
      'list_mcp_resources',
      {
        server: 'workspace',
      },
    );
    expect(JSON.stringify(all.content)).toContain('ui://workspace/dashboard');
  });
});
