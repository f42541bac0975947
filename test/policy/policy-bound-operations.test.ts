import { describe, expect, it, onTestFinished } from 'vitest';
import { startGitNexusFixture, startWorkspaceFixture } from '../../fixtures/index.js';
import { MemoryAuditSink } from '../../src/audit/memory-audit-sink.js';
import { McpServerRegistry } from '../../src/mcp/mcp-server-registry.js';
import { AccessPolicy } from '../../src/policy/access-policy.js';
import { scriptedMemoryConfig } from '../mcp/support/scripted-server.js';

const issueTemplate = 'workspace://project/{project}/issue/{issue}';

const policy = new AccessPolicy({
  bindings: {
    triage: {
      servers: [
        {
          name: 'workspace',
          resources: ['workspace://project/**', 'skill://git-workflow/**'],
          prompts: ['triage'],
          tools: ['find_issues'],
          operations: ['list', 'read', 'prompt', 'tool'],
          maxBytes: 40,
        },
        { name: 'gitnexus', operations: ['read', 'subscribe'] },
      ],
    },
    plainText: { servers: ['workspace', 'scripted'], mimeTypes: ['text/plain'] },
    open: { servers: ['*'] },
    guideOnly: {
      servers: ['workspace'],
      resources: ['workspace://guide'],
      prompts: ['other'],
      tools: ['other'],
      operations: ['list', 'read', 'tool'],
    },
  },
});

/** One registry over a workspace, a subscribable gitnexus and a scripted server, audited in memory. */
async function boundRegistry() {
  const workspace = await startWorkspaceFixture({ transport: 'memory' });
  const gitnexus = await startGitNexusFixture({ transport: 'memory', subscribe: true });
  const audit = new MemoryAuditSink();
  const servers = new McpServerRegistry({
    mcpServers: {
      workspace: workspace.serverConfig,
      gitnexus: gitnexus.serverConfig,
      scripted: scriptedMemoryConfig({
        resources: [
          { uri: 's://typed', name: 'typed', mimeType: 'image/png' },
          { uri: 's://untyped', name: 'untyped' },
        ],
      }),
    },
    reconnect: false,
    audit,
  });
  onTestFinished(async () => {
    await servers.close();
    await gitnexus.close();
    await workspace.close();
  });
  /** The audit records so far, without their times. */
  const records = () =>
    audit.records.map(({ at: _at, durationMs: _durationMs, bytes: _bytes, items: _items, ...rest }) => rest);
  return { servers, records, workspace, audit };
}

const denied = (server: string, value: string) => ({
  code: 'POLICY_DENIED',
  server,
  field: 'operation',
  value,
});
const triageActor = { kind: 'pipeline', pipelineId: 'triage' } as const;

describe('PolicyBoundServers: which servers a principal sees', () => {
  it('names, has and statuses keep only the servers the principal may list', async () => {
    const { servers } = await boundRegistry();
    const triage = policy.bind(servers, { pipelineId: 'triage' });
    expect(triage.serverNames).toEqual(['workspace']);
    expect([triage.has('workspace'), triage.has('gitnexus'), triage.has('nowhere')]).toEqual([
      true,
      false,
      false,
    ]);
    expect(triage.statuses().map((status) => status.server)).toEqual(['workspace']);
    expect(triage.status('workspace').server).toBe('workspace');
    expect(policy.bind(servers, { pipelineId: 'open' }).serverNames).toEqual([
      'workspace',
      'gitnexus',
      'scripted',
    ]);
  });

  it('the status of a server it may not list is POLICY_DENIED, and audited as such', async () => {
    const { servers, records } = await boundRegistry();
    const triage = policy.bind(servers, { pipelineId: 'triage' });
    expect(() => triage.status('gitnexus')).toThrow(expect.objectContaining(denied('gitnexus', 'list')));
    expect(records()).toEqual([
      {
        actor: triageActor,
        server: 'gitnexus',
        operation: 'status',
        status: 'denied',
        errorCode: 'POLICY_DENIED',
      },
    ]);
  });

  it('the principal is copied when bound: changing the caller’s object later changes nothing', async () => {
    const { servers } = await boundRegistry();
    const principal = { pipelineId: 'triage' };
    const triage = policy.bind(servers, principal);
    principal.pipelineId = 'open';
    expect(triage.principal).toEqual({ pipelineId: 'triage' });
    expect(triage.serverNames).toEqual(['workspace']);
  });
});

describe('PolicyBoundServers: listings keep only what the binding admits', () => {
  it('resources by URI pattern and by declared media type; an undeclared type is left to the read', async () => {
    const { servers } = await boundRegistry();
    const uris = async (pipelineId: string, server: string) =>
      (await policy.bind(servers, { pipelineId }).listResources(server)).resources.map(
        (resource) => resource.uri,
      );
    expect(await uris('triage', 'workspace')).toEqual(['skill://git-workflow/SKILL.md']);
    expect(await uris('plainText', 'workspace')).toEqual(['workspace://logs/huge']);
    expect(await uris('plainText', 'scripted')).toEqual(['s://untyped']);
    expect(await uris('open', 'scripted')).toEqual(['s://typed', 's://untyped']);
  });

  it('templates by URI pattern and by declared media type', async () => {
    const { servers } = await boundRegistry();
    const templates = async (pipelineId: string) =>
      (await policy.bind(servers, { pipelineId }).listResourceTemplates('workspace')).resourceTemplates.map(
        (template) => template.uriTemplate,
      );
    expect(await templates('triage')).toEqual([issueTemplate]);
    expect(await templates('open')).toEqual([issueTemplate]);
    expect(await templates('guideOnly')).toEqual([]);
    expect(await templates('plainText')).toEqual([]);
  });

  it('prompts, skills and tools by name or URI', async () => {
    const { servers } = await boundRegistry();
    const triage = policy.bind(servers, { pipelineId: 'triage' });
    const open = policy.bind(servers, { pipelineId: 'open' });
    expect((await triage.listPrompts('workspace')).prompts.map((prompt) => prompt.name)).toEqual(['triage']);
    expect((await triage.listSkills('workspace')).skills.map((skill) => skill.uri)).toEqual([
      'skill://git-workflow/SKILL.md',
    ]);
    expect((await open.listSkills('workspace')).skills).toHaveLength(4);
    expect((await triage.listTools('workspace')).tools.map((tool) => tool.name)).toEqual(['find_issues']);
    const narrow = policy.bind(servers, { pipelineId: 'guideOnly' });
    expect((await narrow.listTools('workspace')).tools).toEqual([]);
  });

  it('listings go out as the bound pipeline: the registry audits the pipeline as the actor', async () => {
    const { servers, records } = await boundRegistry();
    const triage = policy.bind(servers, { pipelineId: 'triage' });
    await triage.listResources('workspace');
    await triage.listResourceTemplates('workspace');
    await triage.listPrompts('workspace');
    await triage.listSkills('workspace');
    await triage.listTools('workspace');
    expect(records().map((record) => [record.operation, record.status, record.actor])).toEqual([
      ['resources/list', 'ok', triageActor],
      ['resources/templates/list', 'ok', triageActor],
      ['prompts/list', 'ok', triageActor],
      ['skills/list', 'ok', triageActor],
      ['tools/list', 'ok', triageActor],
    ]);
  });
});

describe('PolicyBoundServers: reads', () => {
  it('the smaller of the caller’s and the binding’s byte caps applies', async () => {
    const { servers, audit } = await boundRegistry();
    const triage = policy.bind(servers, { pipelineId: 'triage' });
    const uri = 'workspace://project/atlas/issue/101';
    expect((await triage.readResource('workspace', uri)).truncation?.maxBytes).toBe(40);
    expect((await triage.readResource('workspace', uri, { maxBytes: 10 })).truncation?.maxBytes).toBe(10);
    expect((await triage.readResource('workspace', uri, { maxBytes: 400 })).truncation?.maxBytes).toBe(40);
    const open = policy.bind(servers, { pipelineId: 'open' });
    const whole = await open.readResource('workspace', uri);
    expect(whole.truncation).toBeUndefined();
    const wholeBytes = Buffer.byteLength((whole.contents[0] as { text: string }).text);
    expect(wholeBytes).toBe(73);
    expect((await open.readResource('workspace', uri, { maxBytes: 5 })).truncation).toMatchObject({
      maxBytes: 5,
      keptBytes: 5,
    });
    // The registry itself was asked for no more: what it kept, and audited, is the capped read.
    expect(audit.records.map((record) => record.bytes)).toEqual([40, 10, 40, wholeBytes, 5]);
  });

  it('an allowed read and skill go out as the pipeline; others are denied and audited with their URI', async () => {
    const { servers, records, workspace } = await boundRegistry();
    const triage = policy.bind(servers, { pipelineId: 'triage' });
    expect((await triage.getSkill('workspace', 'skill://git-workflow/SKILL.md')).frontmatter.name).toBe(
      'git-workflow',
    );
    await expect(triage.readResource('workspace', 'workspace://guide')).rejects.toMatchObject(
      denied('workspace', 'workspace://guide'),
    );
    await expect(triage.getSkill('workspace', 'skill://media-kit/SKILL.md')).rejects.toMatchObject(
      denied('workspace', 'skill://media-kit/SKILL.md'),
    );
    expect(workspace.reads).toEqual([]);
    expect(records()).toEqual([
      {
        actor: triageActor,
        server: 'workspace',
        operation: 'skills/get',
        uri: 'skill://git-workflow/SKILL.md',
        status: 'ok',
      },
      {
        actor: triageActor,
        server: 'workspace',
        operation: 'resources/read',
        uri: 'workspace://guide',
        status: 'denied',
        errorCode: 'POLICY_DENIED',
      },
      {
        actor: triageActor,
        server: 'workspace',
        operation: 'skills/get',
        uri: 'skill://media-kit/SKILL.md',
        status: 'denied',
        errorCode: 'POLICY_DENIED',
      },
    ]);
  });

  it('a read whose returned media type the binding refuses is POLICY_DENIED, naming the URI and server', async () => {
    const { servers } = await boundRegistry();
    await expect(
      policy.bind(servers, { pipelineId: 'plainText' }).readResource('workspace', 'workspace://guide'),
    ).rejects.toMatchObject({
      code: 'POLICY_DENIED',
      field: 'mimeType',
      value: 'text/markdown',
      message:
        'workspace://guide on server "workspace" returned media type text/markdown, which the binding does not allow',
    });
  });

  it('subscribe and unsubscribe need the subscribe operation', async () => {
    const { servers, records } = await boundRegistry();
    const triage = policy.bind(servers, { pipelineId: 'triage' });
    await triage.subscribeResource('gitnexus', 'gitnexus://repos');
    await triage.unsubscribeResource('gitnexus', 'gitnexus://repos');
    await expect(triage.subscribeResource('workspace', 'workspace://project/a')).rejects.toMatchObject(
      denied('workspace', 'workspace://project/a'),
    );
    await expect(triage.unsubscribeResource('workspace', 'workspace://project/a')).rejects.toMatchObject(
      denied('workspace', 'workspace://project/a'),
    );
    expect(records().map((record) => [record.operation, record.server, record.uri, record.status])).toEqual([
      ['resources/subscribe', 'gitnexus', 'gitnexus://repos', 'ok'],
      ['resources/unsubscribe', 'gitnexus', 'gitnexus://repos', 'ok'],
      ['resources/subscribe', 'workspace', 'workspace://project/a', 'denied'],
      ['resources/unsubscribe', 'workspace', 'workspace://project/a', 'denied'],
    ]);
  });
});

describe('PolicyBoundServers: prompts, completion and tools', () => {
  it('an allowed prompt and tool call reach the server; others are denied with argument names, never values', async () => {
    const { servers, records } = await boundRegistry();
    const triage = policy.bind(servers, { pipelineId: 'triage' });
    const prompt = await triage.getPrompt('workspace', 'triage', { project: 'atlas' });
    expect(prompt.description).toBe('Triage atlas');
    const called = await triage.callTool('workspace', 'find_issues', { project: 'atlas' });
    expect(called.content[0]).toEqual({ type: 'text', text: '3 open issue(s) in atlas.' });
    await expect(triage.getPrompt('workspace', 'secret', { zeta: 'v1', alpha: 'v2' })).rejects.toMatchObject(
      denied('workspace', 'secret'),
    );
    await expect(triage.callTool('workspace', 'rm', { path: '/', force: true })).rejects.toMatchObject(
      denied('workspace', 'rm'),
    );
    const deniedRecords = records().filter((record) => record.status === 'denied');
    expect(deniedRecords).toEqual([
      {
        actor: triageActor,
        server: 'workspace',
        operation: 'prompts/get',
        prompt: 'secret',
        argumentNames: ['alpha', 'zeta'],
        status: 'denied',
        errorCode: 'POLICY_DENIED',
      },
      {
        actor: triageActor,
        server: 'workspace',
        operation: 'tools/call',
        tool: 'rm',
        argumentNames: ['force', 'path'],
        status: 'denied',
        errorCode: 'POLICY_DENIED',
      },
    ]);
    expect(records().map((record) => [record.operation, record.status, record.actor])).toEqual([
      ['prompts/get', 'ok', triageActor],
      ['tools/call', 'ok', triageActor],
      ['prompts/get', 'denied', triageActor],
      ['tools/call', 'denied', triageActor],
    ]);
  });

  it('completing a prompt argument needs the prompt; a template argument, the template listable', async () => {
    const { servers, records } = await boundRegistry();
    const triage = policy.bind(servers, { pipelineId: 'triage' });
    expect(
      (await triage.complete('workspace', { prompt: 'triage', argument: 'project', value: 'a' })).values,
    ).toEqual(['atlas', 'apollo', 'artemis']);
    expect(
      (await triage.complete('workspace', { template: issueTemplate, argument: 'project', value: 'z' }))
        .values,
    ).toEqual(['zephyr']);
    const guideOnly = policy.bind(servers, { pipelineId: 'guideOnly' });
    await expect(
      guideOnly.complete('workspace', { prompt: 'triage', argument: 'project', value: 'a' }),
    ).rejects.toMatchObject(denied('workspace', 'triage'));
    await expect(
      guideOnly.complete('workspace', { template: issueTemplate, argument: 'issue', value: '1' }),
    ).rejects.toMatchObject(denied('workspace', issueTemplate));
    expect(records().map(({ actor: _actor, errorCode: _errorCode, ...rest }) => rest)).toEqual([
      {
        server: 'workspace',
        operation: 'completion/complete',
        prompt: 'triage',
        argumentNames: ['project'],
        status: 'ok',
      },
      {
        server: 'workspace',
        operation: 'completion/complete',
        uri: issueTemplate,
        argumentNames: ['project'],
        status: 'ok',
      },
      {
        server: 'workspace',
        operation: 'completion/complete',
        prompt: 'triage',
        argumentNames: ['project'],
        status: 'denied',
      },
      {
        server: 'workspace',
        operation: 'completion/complete',
        uri: issueTemplate,
        argumentNames: ['issue'],
        status: 'denied',
      },
    ]);
  });

  it('a denied listing names the operation it refused', async () => {
    const { servers, records } = await boundRegistry();
    const triage = policy.bind(servers, { pipelineId: 'triage' });
    await expect(triage.listResources('gitnexus')).rejects.toMatchObject(denied('gitnexus', 'list'));
    await expect(triage.listPrompts('gitnexus')).rejects.toMatchObject(denied('gitnexus', 'prompt'));
    await expect(triage.listTools('gitnexus')).rejects.toMatchObject(denied('gitnexus', 'tool'));
    await expect(triage.listSkills('gitnexus')).rejects.toMatchObject(denied('gitnexus', 'list'));
    await expect(triage.listResourceTemplates('gitnexus')).rejects.toMatchObject(denied('gitnexus', 'list'));
    expect(records().map((record) => [record.operation, record.status])).toEqual([
      ['resources/list', 'denied'],
      ['prompts/list', 'denied'],
      ['tools/list', 'denied'],
      ['skills/list', 'denied'],
      ['resources/templates/list', 'denied'],
    ]);
  });
});

describe('PolicyBoundServers.authorize', () => {
  it('decides for the bound principal; only a denial is audited, under the given method', async () => {
    const { servers, records } = await boundRegistry();
    const triage = policy.bind(servers, { pipelineId: 'triage' });
    expect(
      triage.authorize(
        { server: 'workspace', operation: 'read', uri: 'workspace://project/a' },
        'resources/read',
      ),
    ).toEqual({ allowed: true, limits: { maxBytes: 40, mimeTypes: [] } });
    expect(records()).toEqual([]);
    expect(
      triage.authorize({ server: 'workspace', operation: 'prompt', prompt: 'x' }, 'prompts/get', ['k']),
    ).toEqual({ allowed: false, reason: 'pipeline "triage" may not use prompt "x" of server "workspace"' });
    expect(records()).toEqual([
      {
        actor: triageActor,
        server: 'workspace',
        operation: 'prompts/get',
        prompt: 'x',
        argumentNames: ['k'],
        status: 'denied',
        errorCode: 'POLICY_DENIED',
      },
    ]);
  });
});
