import { describe, expect, it } from 'vitest';
import type { FixtureSkill } from '../../fixtures/workspace/workspace-skills.js';
import type { ResourceContextProviderOptions } from '../../src/provider/resource-context-provider-options.js';
import { startProviderHarness } from '../support/provider-harness.js';
import { startSkillServer } from '../support/skill-server.js';

const pipeline = { pipelineId: 'support' };
const uri = 'skill://bulky/SKILL.md';

/**
 * A skill whose SKILL.md frontmatter holds `extra` keys beside its name and description; the entry
 * claims the same. `keyValue` gives each key's YAML source and the value it parses to.
 */
function bulkySkill(
  extra: number,
  keyValue: (index: number) => readonly [string, string] = () => ['v', 'v'],
): FixtureSkill {
  const frontmatter: FixtureSkill['frontmatter'] = { name: 'bulky', description: 'Many keys' };
  const lines = ['---', 'name: bulky', 'description: Many keys'];
  for (let index = 0; index < extra; index++) {
    const [source, value] = keyValue(index);
    frontmatter[`key${index}`] = value;
    lines.push(`key${index}: ${source}`);
  }
  lines.push('---', '', '# Bulky', '');
  return { uri, frontmatter, files: { [uri]: lines.join('\n') } };
}

async function provideSkill(
  skill: FixtureSkill,
  provider: Partial<Omit<ResourceContextProviderOptions, 'servers' | 'attachments' | 'policy'>> = {},
) {
  const server = startSkillServer([skill]);
  const { provider: context, attachments } = await startProviderHarness('memory', {
    extraServers: { skills: server.serverConfig },
    provider,
  });
  await attachments.pin({ scope: pipeline, server: 'skills', uri, skill: true });
  const started = performance.now();
  const result = await context.provide(pipeline);
  return { ...result, elapsedMs: performance.now() - started, server };
}

describe('a SKILL.md frontmatter is bounded before its YAML is parsed', () => {
  it('20,000 keys (about 630 KB) is LIMIT_EXCEEDED naming skills.maxFrontmatterBytes, answered without parsing', async () => {
    const { trace, blocks, elapsedMs } = await provideSkill(bulkySkill(20_000));
    expect(trace.entries[0]).toMatchObject({
      uri,
      status: 'error',
      error: {
        code: 'LIMIT_EXCEEDED',
        message: expect.stringContaining("over the host's cap of 65536 (skills.maxFrontmatterBytes)"),
      },
    });
    expect(blocks.filter((block) => block.kind === 'resource')).toEqual([]);
    // The parse took 4.2 s on this input; refusing it takes a few milliseconds.
    expect(elapsedMs).toBeLessThan(1_500);
  });

  it('more keys than skills.maxFrontmatterKeys within the byte cap is LIMIT_EXCEEDED naming that limit', async () => {
    // 2,000 short keys: about 20 KB, under the byte cap.
    const { trace } = await provideSkill(bulkySkill(2_000));
    expect(trace.entries[0]?.status).toBe('error');
    expect(trace.entries[0]?.error).toEqual({
      code: 'LIMIT_EXCEEDED',
      message: `${uri} on server "skills": its frontmatter has 2002 keys, over the host's cap of 256 (skills.maxFrontmatterKeys); not parsed, not used`,
    });
  });

  it('the host sets both limits; a frontmatter within them is parsed and verified as before', async () => {
    const within = await provideSkill(bulkySkill(300), { skills: { maxFrontmatterKeys: 400 } });
    expect(within.trace.entries[0]).toMatchObject({ status: 'injected', skillName: 'bulky' });
    const tight = await provideSkill(bulkySkill(3), { skills: { maxFrontmatterBytes: 40 } });
    expect(tight.trace.entries[0]?.error?.message).toContain(
      "over the host's cap of 40 (skills.maxFrontmatterBytes)",
    );
  });

  it('colons inside values (URLs, quoted text) are not keys', async () => {
    const skill = bulkySkill(250, (index) =>
      index % 2 === 0
        ? [`https://example.com:${index}/a`, `https://example.com:${index}/a`]
        : [`"see: https://example.com:${index}"`, `see: https://example.com:${index}`],
    );
    const { trace } = await provideSkill(skill);
    // 252 keys, each value holding two colons: under the 256-key cap.
    expect(trace.entries[0]).toMatchObject({ status: 'injected' });
  });
});
