import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { z } from 'zod';
import { startWorkspaceFixture, type WorkspaceServerOptions } from '../../fixtures/index.js';
import type { AccessPolicyOptions } from '../../src/policy/access-policy.js';
import type { ResourceContextProviderOptions } from '../../src/provider/resource-context-provider-options.js';
import { startProviderHarness } from '../support/provider-harness.js';

const pipeline = { pipelineId: 'support' };
const gitWorkflow = 'skill://git-workflow/SKILL.md';
const refunds = 'skill://acme/billing/refunds/SKILL.md';
const mediaKit = 'skill://media-kit/SKILL.md';
const guide = 'workspace://guide';

async function startWithWorkspace(
  options: {
    workspace?: WorkspaceServerOptions;
    provider?: Partial<ResourceContextProviderOptions>;
    policy?: AccessPolicyOptions;
  } = {},
) {
  const workspace = await startWorkspaceFixture({ transport: 'memory', ...options.workspace });
  onTestFinished(() => workspace.close());
  const harness = await startProviderHarness('memory', {
    extraServers: { workspace: workspace.serverConfig },
    ...(options.provider && { provider: options.provider }),
    ...(options.policy && { policy: options.policy }),
  });
  return { ...harness, workspace };
}

/** A real SDK server that declares the skills extension and never answers `skills/get`. */
function silentSkillsServer() {
  const sessions: Server[] = [];
  onTestFinished(async () => {
    await Promise.allSettled(sessions.map((session) => session.close()));
  });
  return {
    type: 'transport' as const,
    createTransport: async () => {
      const server = new Server(
        { name: 'silent', version: '1.0.0' },
        { capabilities: { resources: {}, extensions: { 'io.modelcontextprotocol/skills': {} } } },
      );
      server.setRequestHandler(
        z.object({ method: z.literal('skills/get'), params: z.looseObject({ uri: z.string() }) }),
        () => new Promise<never>(() => {}),
      );
      sessions.push(server);
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      return clientSide;
    },
  };
}

const statuses = (entries: readonly { uri: string; status: string; error?: { code: string } }[]) =>
  entries.map((entry) => [entry.uri, entry.status, entry.error?.code]);

describe('skills in a turn', () => {
  it('skills beyond the per-turn cap are refused in rank order, before their server is asked', async () => {
    const { provider, attachments, workspace } = await startWithWorkspace({
      provider: { skills: { maxPerTurn: 2 } },
    });
    for (const uri of [gitWorkflow, refunds, mediaKit]) {
      await attachments.pin({ scope: pipeline, server: 'workspace', uri, skill: true });
    }
    const { trace, blocks } = await provider.provide(pipeline);
    expect(statuses(trace.entries)).toEqual([
      [gitWorkflow, 'injected', undefined],
      [refunds, 'error', 'SKILL_MISMATCH'],
      [mediaKit, 'error', 'LIMIT_EXCEEDED'],
    ]);
    expect(trace.entries[2]).toMatchObject({ cache: 'bypass', tokens: 0 });
    // The cap's own error, not media-kit's size cap (which it would meet next, were it asked).
    expect(trace.entries[2]?.error).toEqual({
      code: 'LIMIT_EXCEEDED',
      message: "this turn already loads 2 skill(s), the host's cap (skills.maxPerTurn)",
    });
    expect(trace.entries[0]?.skillName).toBe('git-workflow');
    const frames = blocks.filter((block) => block.kind === 'resource');
    expect(frames.map((block) => block.kind === 'resource' && block.provenance.skill)).toEqual([
      { name: 'git-workflow', description: "Follow this team's Git conventions for branching and commits" },
    ]);
    expect(workspace.readCount(mediaKit)).toBe(0);
  });

  it('neither a denied skill nor a plain resource counts toward the cap', async () => {
    const { provider, attachments } = await startWithWorkspace({
      provider: { skills: { maxPerTurn: 1 } },
      policy: {
        bindings: {
          support: { servers: ['gitnexus', { name: 'workspace', resources: [gitWorkflow, guide] }] },
        },
      },
    });
    await attachments.pin({ scope: pipeline, server: 'workspace', uri: refunds, skill: true });
    await attachments.pin({ scope: pipeline, server: 'workspace', uri: guide });
    await attachments.pin({ scope: pipeline, server: 'workspace', uri: gitWorkflow, skill: true });
    const { trace } = await provider.provide(pipeline);
    expect(trace.entries[0]).toMatchObject({ status: 'denied', cache: 'bypass', tokens: 0, durationMs: 0 });
    expect(statuses(trace.entries)).toEqual([
      [refunds, 'denied', 'POLICY_DENIED'],
      [guide, 'injected', undefined],
      [gitWorkflow, 'injected', undefined],
    ]);
  });

  it("an entry over the host's caps is refused from the entry alone: none of its files is read", async () => {
    const { provider, attachments, workspace } = await startWithWorkspace({
      provider: { skills: { maxFiles: 1 } },
    });
    await attachments.pin({ scope: pipeline, server: 'workspace', uri: gitWorkflow, skill: true });
    const { trace } = await provider.provide(pipeline);
    expect(statuses(trace.entries)).toEqual([[gitWorkflow, 'error', 'LIMIT_EXCEEDED']]);
    expect(trace.entries[0]?.error?.message).toContain("has 2 files, over the host's cap of 1");
    expect(workspace.readCount(gitWorkflow)).toBe(0);
  });

  it('a skill file that no longer matches its entry is refused: the read is verified against the entry', async () => {
    const { provider, attachments } = await startWithWorkspace({
      workspace: { tamperedUris: [gitWorkflow] },
    });
    await attachments.pin({ scope: pipeline, server: 'workspace', uri: gitWorkflow, skill: true });
    const { trace } = await provider.provide(pipeline);
    expect(statuses(trace.entries)).toEqual([[gitWorkflow, 'error', 'SKILL_MISMATCH']]);
  });

  it('an entry that fails with something other than a ContextError is INTERNAL_ERROR naming the skill; nothing is read', async () => {
    const { provider, attachments, servers, workspace } = await startWithWorkspace();
    // Not a protocol failure (the registry answers those as ContextErrors): a bug on this side.
    vi.spyOn(servers, 'getSkill').mockRejectedValueOnce(new TypeError('entry.resources is not iterable'));
    await attachments.pin({ scope: pipeline, server: 'workspace', uri: gitWorkflow, skill: true });
    const { trace, blocks } = await provider.provide(pipeline);
    expect(trace.entries[0]).toMatchObject({
      uri: gitWorkflow,
      status: 'error',
      cache: 'bypass',
      tokens: 0,
      error: {
        code: 'INTERNAL_ERROR',
        message: `${gitWorkflow}: TypeError: entry.resources is not iterable`,
      },
    });
    expect(blocks.filter((block) => block.kind === 'resource')).toEqual([]);
    expect(workspace.readCount(gitWorkflow)).toBe(0);
  });

  it('an entry the server cannot give is an error, one it does not give in time a timeout; nothing is read', async () => {
    const withoutSkills = await startWithWorkspace({ workspace: { skills: false } });
    await withoutSkills.attachments.pin({
      scope: pipeline,
      server: 'workspace',
      uri: gitWorkflow,
      skill: true,
    });
    const missing = await withoutSkills.provider.provide(pipeline);
    expect(statuses(missing.trace.entries)).toEqual([[gitWorkflow, 'error', 'CAPABILITY_MISSING']]);
    expect(missing.trace.entries[0]).toMatchObject({ cache: 'bypass', tokens: 0 });
    expect(withoutSkills.workspace.readCount(gitWorkflow)).toBe(0);

    const { provider, attachments } = await startProviderHarness('memory', {
      extraServers: { silent: silentSkillsServer() },
      provider: { readTimeoutMs: 50 },
    });
    await attachments.pin({ scope: pipeline, server: 'silent', uri: gitWorkflow, skill: true });
    const { trace } = await provider.provide(pipeline);
    expect(statuses(trace.entries)).toEqual([[gitWorkflow, 'timeout', 'REQUEST_TIMEOUT']]);
    expect(trace.entries[0]).toMatchObject({ cache: 'bypass', tokens: 0 });
    expect(trace.entries[0]?.durationMs).toBeGreaterThanOrEqual(50);
    expect(trace.entries[0]?.durationMs).toBeLessThanOrEqual(trace.durationMs);
  });
});
