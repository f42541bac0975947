import { describe, expect, it } from 'vitest';
import { userSkillUri } from '../../fixtures/index.js';
import type { ResourceContextProviderOptions } from '../../src/provider/resource-context-provider-options.js';
import { createExplorationTools } from '../../src/tools/create-exploration-tools.js';
import { startPerUserHarness } from '../support/per-user-harness.js';
import { sharedTokenizer } from '../support/provider-harness.js';

async function setUp(provider: Partial<ResourceContextProviderOptions> = {}) {
  const harness = await startPerUserHarness({ provider });
  const turn = (principal?: string) =>
    harness.provider.provide({ pipelineId: 'support', ...(principal !== undefined && { principal }) });
  const text = (result: Awaited<ReturnType<typeof turn>>) => JSON.stringify(result.blocks);
  return { ...harness, turn, text };
}

describe('principals never mix (invariant 9): a per-user server through the provider', () => {
  it('cache hits stay within a principal: the second principal misses and gets its own content', async () => {
    const { turn, text } = await setUp();
    const ada = await turn('ada');
    const bob = await turn('bob');
    const adaAgain = await turn('ada');
    expect(text(ada)).toContain('notes of ada');
    expect(text(bob)).toContain('notes of bob');
    expect(text(bob)).not.toContain('notes of ada');
    expect(text(adaAgain)).toContain('notes of ada');
    expect([ada, bob, adaAgain].map((result) => result.trace.entries[0]?.cache)).toEqual([
      'miss',
      'miss',
      'hit',
    ]);
  });

  it('concurrent turns of two principals do not join one read', async () => {
    const { turn, text } = await setUp();
    const [ada, bob] = await Promise.all([turn('ada'), turn('bob')]);
    expect(text(ada)).toContain('notes of ada');
    expect(text(bob)).toContain('notes of bob');
    expect(text(ada)).not.toContain('bob');
  });

  it('stale-on-error serves each principal only its own copy, and one with none gets the error', async () => {
    const { turn, text, server } = await setUp({ cache: { ttlMs: 0 } });
    await turn('ada');
    await server.close();
    const ada = await turn('ada');
    const carol = await turn('carol');
    expect(ada.trace.entries[0]).toMatchObject({ cache: 'stale' });
    expect(text(ada)).toContain('notes of ada');
    expect(carol.trace.entries[0]).toMatchObject({ status: 'error' });
    expect(text(carol)).not.toContain('notes of');
  });

  it('a turn without a principal gets PRINCIPAL_REQUIRED in its trace, and the other attachments still come', async () => {
    const { turn, attachments } = await setUp();
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    const result = await turn();
    const byServer = new Map(result.trace.entries.map((entry) => [entry.server, entry]));
    expect(byServer.get('mine')).toMatchObject({ status: 'error', error: { code: 'PRINCIPAL_REQUIRED' } });
    expect(byServer.get('gitnexus')).toMatchObject({ status: 'injected' });
  });

  it('a skill on a per-user server: each principal loads their own entry and file, without one it is PRINCIPAL_REQUIRED', async () => {
    const { turn, attachments, server } = await setUp();
    // The skill alone: set-up's `private://notes` pin goes.
    await attachments.unpin((await attachments.list({ pipelineId: 'support' }))[0]?.id ?? '');
    await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'mine',
      uri: userSkillUri,
      skill: true,
    });
    const skillFrames = (result: Awaited<ReturnType<typeof turn>>) =>
      result.blocks.flatMap((block) => (block.kind === 'resource' ? [block.provenance.skill] : []));
    const ada = await turn('ada');
    const bob = await turn('bob');
    expect(
      [ada, bob].map((result) => result.trace.entries.map((entry) => [entry.status, entry.skillName])),
    ).toEqual([[['injected', 'notes']], [['injected', 'notes']]]);
    expect(skillFrames(ada)).toEqual([{ name: 'notes', description: 'Keep notes the way ada does' }]);
    expect(skillFrames(bob)).toEqual([{ name: 'notes', description: 'Keep notes the way bob does' }]);
    const requestsBefore = server.log.requests.length;
    const nobody = await turn();
    expect(nobody.trace.entries[0]).toMatchObject({
      status: 'error',
      cache: 'bypass',
      error: {
        code: 'PRINCIPAL_REQUIRED',
        message: 'server "mine" is per-user: the call must name the principal (the user) it is for',
      },
    });
    // Refused before anything is sent: the server heard nothing of that turn.
    expect(server.log.requests.length).toBe(requestsBefore);
  });

  it('exploration tools read as the principal the host names, and without one say PRINCIPAL_REQUIRED', async () => {
    const { servers, policy } = await setUp();
    const tools = createExplorationTools({
      servers,
      policy,
      pipelineId: 'support',
      tokenizer: sharedTokenizer,
      maxTokens: 2000,
    });
    const args = { server: 'mine', uri: 'private://notes' };
    const asBob = await tools.execute('read_mcp_resource', args, { principal: 'bob' });
    const asNobody = await tools.execute('read_mcp_resource', args);
    expect(JSON.stringify(asBob.content)).toContain('notes of bob');
    expect(asNobody.isError).toBe(true);
    expect(JSON.stringify(asNobody.content)).toContain('PRINCIPAL_REQUIRED');
  });
});
