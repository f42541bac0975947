import { describe, expect, it } from 'vitest';
import type { Turn } from '../../src/types.js';
import { startPerUserHarness } from '../support/per-user-harness.js';
import { startProviderHarness } from '../support/provider-harness.js';

const rule = (limit: number) => `1 to ${limit} bytes of well-formed UTF-8 without NUL`;

describe("a turn's ids and attachments follow the boundary's rule before anything reads with them", () => {
  it('a principal holding a lone surrogate is INVALID_OPTION naming turn.principal; the per-user server is never asked', async () => {
    const { provider, server } = await startPerUserHarness();
    const error = await provider
      .provide({ pipelineId: 'support', principal: 'ada\uD800' })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'INVALID_OPTION', field: 'turn.principal', limit: 256 });
    expect((error as Error).message).toBe(
      `turn.principal: an id is ${rule(256)}; this one holds a lone surrogate (U+D800 at index 3) (got "ada\\ud800")`,
    );
    expect(server.log.requests).toEqual([]);
    expect(server.log.authorizations).toEqual([]);
  });

  it('the registry refuses such a principal as well, naming it, before connecting', async () => {
    const { servers, server } = await startPerUserHarness();
    await expect(
      servers.readResource('mine', 'private://notes', { principal: '\uDC00ada' }),
    ).rejects.toMatchObject({ code: 'INVALID_OPTION', field: 'options.principal', limit: 256 });
    expect(server.log.requests).toEqual([]);
    const read = await servers.readResource('mine', 'private://notes', { principal: 'ada' });
    expect(read.contents[0]).toMatchObject({ text: 'notes of ada' });
  });

  it.each([
    ['pipelineId', { pipelineId: 'support\u0000' }],
    ['conversationId', { pipelineId: 'support', conversationId: 'c-\uDBFF' }],
    ['agentId', { pipelineId: 'support', agentId: 'a'.repeat(257) }],
    ['turnId', { pipelineId: 'support', turnId: 't\u0000' }],
    ['conversationId', { pipelineId: 'support', conversationId: '' }],
  ] satisfies [string, Turn][])(
    'a bad %s is INVALID_OPTION naming it and the limit, reading nothing',
    async (name, turn) => {
      const { provider, attachments, fixture } = await startProviderHarness('memory');
      await attachments.pin({
        scope: { pipelineId: 'support' },
        server: 'gitnexus',
        uri: 'gitnexus://repos',
      });
      const error = await provider.provide(turn).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: 'INVALID_OPTION', field: `turn.${name}`, limit: 256 });
      expect((error as Error).message).toContain(rule(256));
      expect(fixture.readCount()).toBe(0);
    },
  );

  it.each([
    ['uri', { server: 'gitnexus', uri: 'gitnexus://repos\u0000' }, 2048],
    ['uri', { server: 'gitnexus', uri: `gitnexus://${'r'.repeat(2040)}` }, 2048],
    ['server', { server: 'git\uD800nexus', uri: 'gitnexus://repos' }, 256],
  ])(
    'a message attachment with a bad %s is INVALID_ATTACHMENT naming it and the limit',
    async (field, attachment, limit) => {
      const { provider, fixture } = await startProviderHarness('memory');
      const error = await provider
        .provide({ pipelineId: 'support', message: { attachments: [attachment] } })
        .catch((caught: unknown) => caught);
      expect(error).toMatchObject({
        code: 'INVALID_ATTACHMENT',
        field: `message.attachments[0].${field}`,
        limit,
      });
      expect((error as Error).message).toContain(rule(limit));
      expect(fixture.readCount()).toBe(0);
    },
  );

  it('a conversation id of astral characters is an id like any other: its pins are injected', async () => {
    const { provider, attachments } = await startProviderHarness('memory');
    const conversationId = `c-${'😀'.repeat(63)}`;
    await attachments.pin({ scope: { conversationId }, server: 'gitnexus', uri: 'gitnexus://repos' });
    const result = await provider.provide({ pipelineId: 'support', conversationId });
    expect(result.trace.entries.map((entry) => [entry.scope, entry.status])).toEqual([
      ['conversation', 'injected'],
    ]);
  });
});
