import { describe, expect, it } from 'vitest';
import { ContextError } from '../../src/errors.js';
import { startWorkspaceRegistry } from '../support/workspace-harness.js';

const issueTemplate = 'workspace://project/{project}/issue/{issue}';

describe.each(['memory', 'http'] as const)('completion and skills over %s', (transport) => {
  it('complete offers the values of a template argument that start with what was typed', async () => {
    const { servers } = await startWorkspaceRegistry(transport);
    const completion = await servers.complete('workspace', {
      template: issueTemplate,
      argument: 'project',
      value: 'a',
    });
    expect(completion).toEqual({ values: ['atlas', 'apollo', 'artemis'], total: 3, hasMore: false });
  });

  it('complete passes the arguments already chosen as context', async () => {
    const { servers } = await startWorkspaceRegistry(transport);
    const completion = await servers.complete('workspace', {
      template: issueTemplate,
      argument: 'issue',
      value: '1',
      context: { project: 'atlas' },
    });
    expect(completion.values).toEqual(['101', '102', '117']);
  });

  it('complete works for a prompt argument too', async () => {
    const { servers } = await startWorkspaceRegistry(transport);
    const completion = await servers.complete('workspace', {
      prompt: 'triage',
      argument: 'project',
      value: 'z',
    });
    expect(completion.values).toEqual(['zephyr']);
  });

  it('a server without the completions capability is never asked: CAPABILITY_MISSING', async () => {
    const { servers } = await startWorkspaceRegistry(transport, { completions: false });
    const failure = await servers
      .complete('workspace', { prompt: 'triage', argument: 'project' })
      .catch((error: unknown) => error);
    expect(ContextError.isInstance(failure) && failure.code).toBe('CAPABILITY_MISSING');
  });

  it('a completion request naming both a template and a prompt is refused before sending', async () => {
    const { servers } = await startWorkspaceRegistry(transport);
    await expect(
      servers.complete('workspace', { template: issueTemplate, prompt: 'triage', argument: 'project' }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTION', field: 'request.template' });
  });

  it('listSkills returns each entry with its frontmatter and file manifest', async () => {
    const { servers } = await startWorkspaceRegistry(transport);
    const { skills } = await servers.listSkills('workspace');
    expect(skills.map((skill) => skill.uri)).toEqual([
      'skill://git-workflow/SKILL.md',
      'skill://acme/billing/refunds/SKILL.md',
      'skill://reports/daily/SKILL.md',
      'skill://media-kit/SKILL.md',
    ]);
    const gitWorkflow = skills[0];
    expect(gitWorkflow?.frontmatter).toMatchObject({ name: 'git-workflow', license: 'Apache-2.0' });
    expect(Array.isArray(gitWorkflow?.resources) && gitWorkflow.resources.map((file) => file.uri)).toEqual([
      'skill://git-workflow/SKILL.md',
      'skill://git-workflow/references/branching.md',
    ]);
    expect(skills[2]?.resources).toBe('dynamic');
  });

  it('getSkill answers by URI; an unknown skill is RESOURCE_NOT_FOUND', async () => {
    const { servers } = await startWorkspaceRegistry(transport);
    const skill = await servers.getSkill('workspace', 'skill://git-workflow/SKILL.md');
    expect(skill.frontmatter.name).toBe('git-workflow');
    await expect(servers.getSkill('workspace', 'skill://nothing/SKILL.md')).rejects.toMatchObject({
      code: 'RESOURCE_NOT_FOUND',
      rpcCode: -32602,
    });
  });

  it('a server without the skills extension is never sent skills/list: CAPABILITY_MISSING', async () => {
    const { servers } = await startWorkspaceRegistry(transport, { skills: false });
    await expect(servers.listSkills('workspace')).rejects.toMatchObject({ code: 'CAPABILITY_MISSING' });
    await expect(servers.getSkill('workspace', 'skill://git-workflow/SKILL.md')).rejects.toMatchObject({
      code: 'CAPABILITY_MISSING',
    });
  });
});
