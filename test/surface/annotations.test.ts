import { describe, expect, it, onTestFinished } from 'vitest';
import { startWorkspaceFixture } from '../../fixtures/index.js';
import type { AccessPolicyOptions } from '../../src/policy/access-policy.js';
import { startProviderHarness, type TransportKind } from '../support/provider-harness.js';

async function startWithWorkspace(transport: TransportKind, policy?: AccessPolicyOptions) {
  const workspace = await startWorkspaceFixture({ transport });
  onTestFinished(() => workspace.close());
  const harness = await startProviderHarness(transport, {
    extraServers: { workspace: workspace.serverConfig },
    ...(policy && { policy }),
  });
  // Turns never wait for a listing: one turn asks for it, and the tests go on once it is known.
  await harness.provider.provide({
    pipelineId: 'support',
    message: { attachments: [{ server: 'workspace', uri: 'workspace://project/acme/issue/1' }] },
  });
  await harness.provider.listingsSettled();
  return { ...harness, workspace };
}

const pipeline = { pipelineId: 'support' };

describe.each(['memory', 'http'] as const)(
  'listing annotations over %s, once the listing is known',
  (transport) => {
    it('a resource whose audience leaves out the assistant is not read: omitted, saying why', async () => {
      const { provider, attachments, workspace } = await startWithWorkspace(transport);
      await attachments.pin({ scope: pipeline, server: 'workspace', uri: 'workspace://handbook' });
      const { blocks, trace } = await provider.provide({ pipelineId: 'support' });
      expect(trace.entries[0]).toMatchObject({
        uri: 'workspace://handbook',
        status: 'omitted',
        tokens: 0,
        reason: expect.stringContaining('for the user audience, not the assistant'),
        lastModified: '2026-10-01T12:00:00Z',
      });
      expect(blocks).toEqual([]);
      expect(workspace.readCount('workspace://handbook')).toBe(0);
    });

    it('a pin with ignoreAudience injects it anyway', async () => {
      const { provider, attachments } = await startWithWorkspace(transport);
      await attachments.pin({
        scope: pipeline,
        server: 'workspace',
        uri: 'workspace://handbook',
        ignoreAudience: true,
      });
      const { blocks, trace } = await provider.provide({ pipelineId: 'support' });
      expect(trace.entries[0]?.status).toBe('injected');
      expect(blocks.map((block) => block.text).join('')).toContain('How to request leave');
    });

    it('lastModified goes into the trace entry, the block provenance and the frame', async () => {
      const { provider, attachments } = await startWithWorkspace(transport);
      await attachments.pin({ scope: pipeline, server: 'workspace', uri: 'workspace://guide' });
      const { blocks, trace } = await provider.provide({ pipelineId: 'support' });
      expect(trace.entries[0]).toMatchObject({ status: 'injected', lastModified: '2026-11-02T09:30:00Z' });
      const block = blocks.find((candidate) => candidate.kind === 'resource');
      expect(block?.kind === 'resource' && block.provenance.lastModified).toBe('2026-11-02T09:30:00Z');
      expect(block?.text).toContain('modified="2026-11-02T09:30:00Z"');
    });

    it('a resource listed larger than the byte cap is not fetched at all, and the trace says so', async () => {
      const { provider, attachments, workspace } = await startWithWorkspace(transport);
      await attachments.pin({ scope: pipeline, server: 'workspace', uri: 'workspace://logs/huge' });
      const { trace } = await provider.provide({ pipelineId: 'support' });
      expect(trace.entries[0]).toMatchObject({
        status: 'omitted',
        reason: expect.stringMatching(/^listed at 50000000 bytes, over the byte cap of \d+: not read/),
      });
      expect(workspace.readCount('workspace://logs/huge')).toBe(0);
    });

    it('the binding’s own maxBytes is the cap the listed size is held against', async () => {
      const { provider, attachments, workspace } = await startWithWorkspace(transport, {
        bindings: { support: { servers: ['gitnexus', { name: 'workspace', maxBytes: 64 }] } },
      });
      await attachments.pin({ scope: pipeline, server: 'workspace', uri: 'workspace://guide' });
      const { trace } = await provider.provide({ pipelineId: 'support' });
      expect(trace.entries[0]).toMatchObject({
        status: 'omitted',
        reason: expect.stringContaining('over the byte cap of 64'),
      });
      expect(workspace.readCount('workspace://guide')).toBe(0);
    });
  },
);
