import { describe, expect, it } from 'vitest';
import { renderText } from '../../src/render/render-text.js';
import { startProviderHarness } from '../support/provider-harness.js';

describe('a stable prefix across turns', () => {
  it('unchanged pipeline and conversation pins render a byte-identical prefix while the message attachment changes', async () => {
    const { attachments, provider } = await startProviderHarness('memory');
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    await attachments.pin({
      scope: { conversationId: 'c-7' },
      server: 'gitnexus',
      template: 'gitnexus://repo/{name}/context',
      arguments: { name: 'acme-shop' },
    });
    const turn = (uri: string, text: string) =>
      provider.provide({
        pipelineId: 'support',
        conversationId: 'c-7',
        message: { text, attachments: [{ server: 'gitnexus', uri }] },
      });
    const first = await turn('gitnexus://repo/acme-shop/process/checkout', 'why does checkout fail?');
    const second = await turn('gitnexus://repo/acme-shop/schema', 'which edges exist?');

    const prefix = (blocks: typeof first.blocks) =>
      renderText(blocks.filter((block) => block.kind !== 'resource' || block.provenance.scope !== 'message'));
    expect(prefix(first.blocks).length).toBeGreaterThan(500);
    expect(prefix(second.blocks)).toBe(prefix(first.blocks));
    expect(renderText(second.blocks).startsWith(prefix(first.blocks))).toBe(true);
    expect(renderText(second.blocks)).not.toBe(renderText(first.blocks));
  });
});
