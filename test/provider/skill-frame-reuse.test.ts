import { describe, expect, it, onTestFinished } from 'vitest';
import { startWorkspaceFixture } from '../../fixtures/index.js';
import type { ProvideResult } from '../../src/types.js';
import { startProviderHarness } from '../support/provider-harness.js';

const gitWorkflow = 'skill://git-workflow/SKILL.md';
const skillAttribute =
  'skill="git-workflow" description="Follow this team\'s Git conventions for branching and commits"';

async function startWithSkillTwoWays() {
  const workspace = await startWorkspaceFixture({ transport: 'memory' });
  onTestFinished(() => workspace.close());
  const harness = await startProviderHarness('memory', {
    extraServers: { workspace: workspace.serverConfig },
  });
  // The same SKILL.md, once as a skill and once as a plain resource, each in a conversation of its own.
  await harness.attachments.pin({
    scope: { conversationId: 'as-skill' },
    server: 'workspace',
    uri: gitWorkflow,
    skill: true,
  });
  await harness.attachments.pin({
    scope: { conversationId: 'as-plain' },
    server: 'workspace',
    uri: gitWorkflow,
  });
  const turn = (conversationId: string) =>
    harness.provider.provide({ pipelineId: 'support', conversationId });
  return { ...harness, workspace, turn };
}

function frameOf(result: ProvideResult) {
  const block = result.blocks.find((candidate) => candidate.kind === 'resource');
  return { text: block?.text ?? '', skill: block?.kind === 'resource' ? block.provenance.skill : undefined };
}

function expectSkillFramed(result: ProvideResult) {
  expect(result.trace.entries.map((entry) => [entry.status, entry.skillName])).toEqual([
    ['injected', 'git-workflow'],
  ]);
  expect(frameOf(result).text).toContain(skillAttribute);
  expect(frameOf(result).skill?.name).toBe('git-workflow');
}

function expectPlainFramed(result: ProvideResult) {
  expect(result.trace.entries.map((entry) => [entry.status, entry.skillName])).toEqual([
    ['injected', undefined],
  ]);
  expect(frameOf(result).text).not.toContain('skill="');
  expect(frameOf(result).text).not.toContain('description="');
  expect(frameOf(result).skill).toBeUndefined();
}

describe('the frame of a SKILL.md is the one its attachment asked for, whichever came first', () => {
  it('a skill turn, then a plain attachment of the same resource: the plain one has no skill frame', async () => {
    const { turn } = await startWithSkillTwoWays();
    expectSkillFramed(await turn('as-skill'));
    const plain = await turn('as-plain');
    expect(plain.trace.entries[0]?.cache).toBe('hit');
    expectPlainFramed(plain);
    // And each again, warm.
    expectSkillFramed(await turn('as-skill'));
    expectPlainFramed(await turn('as-plain'));
  });

  it('a plain attachment, then a skill turn of the same resource: the skill one has its skill frame', async () => {
    const { turn } = await startWithSkillTwoWays();
    expectPlainFramed(await turn('as-plain'));
    const skill = await turn('as-skill');
    expect(skill.trace.entries[0]?.cache).toBe('hit');
    expectSkillFramed(skill);
    expectPlainFramed(await turn('as-plain'));
    expectSkillFramed(await turn('as-skill'));
  });

  it('the two framings cost what each renders: the skill frame counts its name and description', async () => {
    const { turn, provider } = await startWithSkillTwoWays();
    const skill = await turn('as-skill');
    const plain = await turn('as-plain');
    const count = (result: ProvideResult) => provider.tokenizer.count(frameOf(result).text);
    expect(await count(skill)).toBeGreaterThan(await count(plain));
    expect(skill.trace.entries[0]?.tokens).toBe(await count(skill));
    expect(plain.trace.entries[0]?.tokens).toBe(await count(plain));
  });
});
