import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { skillEntry } from '../../fixtures/workspace/workspace-skills.js';
import type { Skill } from '../../src/mcp/skill-schemas.js';
import { readSkillFile } from '../../src/skills/read-skill-file.js';
import { startProviderHarness } from '../support/provider-harness.js';
import { startSkillServer } from '../support/skill-server.js';

const pipeline = { pipelineId: 'support' };
const skillUri = 'skill://docs/my-skill/SKILL.md';
const skillText = '---\nname: my-skill\ndescription: A small skill\n---\n\n# My skill\n';
// What a server that maps skill URIs onto paths would find outside the skill's root.
const secret = 'skill://docs/secret.md';
const secretText = 'the operator password is hunter2';

const digestOf = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

/** Each way a manifest entry can name a file outside `skill://docs/my-skill/`. */
const escapes = [
  'skill://docs/my-skill/../secret.md',
  'skill://docs/my-skill/%2e%2e/secret.md',
  'skill://docs/my-skill/%2E%2e/secret.md',
  'skill://docs/my-skill/%252e%252e/secret.md',
  'skill://docs/my-skill/%25252E%25252E/secret.md',
  'skill://docs/my-skill/.%2E%2fsecret.md',
  'skill://docs/my-skill/./../../docs/secret.md',
  'skill://docs/my-skill/sub/../../secret.md',
  'skill://docs/my-skill/..\\secret.md',
  'skill://docs/my-skill/%5c..%5csecret.md',
  'skill://docs/my-skill/sub\\file.md',
  'skill://docs/my-skill//docs/secret.md',
  '/docs/secret.md',
  'file:///docs/secret.md',
  'skill://other/my-skill/secret.md',
  'skill://docs/my-skill-evil/secret.md',
];

/** A skill server whose my-skill manifest lists `outsideUri` too; every file, the secret included, is served. */
async function withEscapingManifest(outsideUri: string) {
  const files = { [skillUri]: skillText, [outsideUri]: secretText, [secret]: secretText };
  const skill = {
    uri: skillUri,
    frontmatter: { name: 'my-skill', description: 'A small skill' },
    files: { [skillUri]: skillText },
  };
  const entry = {
    ...skillEntry(skill),
    resources: [
      { uri: skillUri, digest: digestOf(skillText), size: Buffer.byteLength(skillText) },
      { uri: outsideUri, digest: digestOf(secretText), size: Buffer.byteLength(secretText) },
    ],
  };
  const server = startSkillServer([{ ...skill, files, entry }]);
  const harness = await startProviderHarness('memory', { extraServers: { docs: server.serverConfig } });
  return { ...harness, server, entry };
}

describe('a skill manifest cannot reach outside the skill’s root', () => {
  it.each(escapes)(
    'a manifest listing %s is SKILL_INVALID naming that file, and nothing is read',
    async (outsideUri) => {
      const { provider, attachments, server } = await withEscapingManifest(outsideUri);
      await attachments.pin({ scope: pipeline, server: 'docs', uri: skillUri, skill: true });
      const { trace, blocks } = await provider.provide(pipeline);
      const entry = trace.entries.find((each) => each.server === 'docs');
      expect(entry).toMatchObject({ status: 'error', error: { code: 'SKILL_INVALID' } });
      expect(entry?.error?.message).toContain(outsideUri);
      expect(blocks.some((block) => block.text.includes(secretText))).toBe(false);
      expect(server.reads()).toEqual([]);
    },
  );

  it.each(escapes)('readSkillFile with a held entry listing %s refuses it unread', async (outsideUri) => {
    const { servers, policy, server, entry } = await withEscapingManifest(outsideUri);
    const view = policy.bind(servers, pipeline);
    // An entry the host holds, as it came (not through skills/get): the rule applies all the same.
    const held = entry as unknown as Skill;
    await expect(
      readSkillFile(view, { server: 'docs', skill: held, file: outsideUri }),
    ).rejects.toMatchObject({
      code: 'SKILL_INVALID',
      value: outsideUri,
    });
    await expect(
      readSkillFile(view, { server: 'docs', skill: skillUri, file: outsideUri }),
    ).rejects.toMatchObject({ code: 'SKILL_INVALID', value: outsideUri });
    expect(server.reads()).toEqual([]);
  });

  it('files inside the root with encoded names are still read and verified', async () => {
    const inside = 'skill://docs/my-skill/references/a%20note.md';
    const { servers, policy, server } = await withEscapingManifest(inside);
    const read = await readSkillFile(policy.bind(servers, pipeline), {
      server: 'docs',
      skill: skillUri,
      file: inside,
    });
    expect(read.contents[0]).toMatchObject({ uri: inside, text: secretText });
    expect(server.reads()).toEqual([inside]);
  });
});
