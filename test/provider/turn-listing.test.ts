import { describe, expect, it } from 'vitest';
import type { AccessPolicyOptions } from '../../src/policy/access-policy.js';
import type { InjectionTrace } from '../../src/types.js';
import { scriptedMemoryConfig } from '../mcp/support/scripted-server.js';
import { startProviderHarness } from '../support/provider-harness.js';

const guide = 'notes://guide';
const forUser = 'notes://for-user';
const big = 'notes://big';
const text = (uri: string, bytes = 40) => [{ uri, mimeType: 'text/plain', text: 'x'.repeat(bytes) }];

/** A real server whose listing says what MCP annotations and sizes can say of each note. */
const notesServer = (reads: string[]) =>
  scriptedMemoryConfig({
    onRead: (uri) => reads.push(uri),
    resources: [
      { uri: guide, name: 'guide', annotations: { lastModified: '2026-11-02T09:30:00Z' } },
      { uri: forUser, name: 'for-user', annotations: { audience: ['user'] } },
      { uri: big, name: 'big', size: 5000 },
    ],
    contents: { [guide]: text(guide), [forUser]: text(forUser), [big]: text(big, 5000) },
  });

/** A provider over `notes`, the listing already known (turns never wait for one). */
async function startWithListing(options: { policy?: AccessPolicyOptions; maxReadBytes?: number } = {}) {
  const reads: string[] = [];
  const harness = await startProviderHarness('memory', {
    extraServers: { notes: notesServer(reads) },
    ...(options.policy && { policy: options.policy }),
    ...(options.maxReadBytes !== undefined && { registry: { maxReadBytes: options.maxReadBytes } }),
  });
  await harness.provider.provide({
    pipelineId: 'support',
    message: { attachments: [{ server: 'notes', uri: guide }] },
  });
  await harness.provider.listingsSettled();
  return { ...harness, reads };
}

const fates = (trace: InjectionTrace) =>
  trace.entries.map(({ uri, status, reason, cache, tokens }) => ({ uri, status, reason, cache, tokens }));

describe('what the listing decides in a turn', () => {
  it('an entry carries its listed lastModified; a resource for the user only is left out unread, unless its pin ignores the audience', async () => {
    const { provider, attachments, reads } = await startWithListing();
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'notes', uri: forUser });
    const { trace } = await provider.provide({
      pipelineId: 'support',
      message: { attachments: [{ server: 'notes', uri: guide }] },
    });
    expect(trace.entries.find((entry) => entry.uri === guide)).toMatchObject({
      status: 'injected',
      lastModified: '2026-11-02T09:30:00Z',
    });
    expect(fates(trace).find((entry) => entry.uri === forUser)).toEqual({
      uri: forUser,
      status: 'omitted',
      reason:
        'the server marks it for the user audience, not the assistant (pin with ignoreAudience to inject it anyway)',
      cache: 'bypass',
      tokens: 0,
    });
    expect(reads.filter((uri) => uri === forUser)).toEqual([]);

    await attachments.pin({
      scope: { conversationId: 'c-1' },
      server: 'notes',
      uri: forUser,
      ignoreAudience: true,
    });
    const ignoring = await provider.provide({ pipelineId: 'support', conversationId: 'c-1' });
    expect(ignoring.trace.entries.map((entry) => [entry.uri, entry.status, entry.lastModified])).toEqual([
      [forUser, 'injected', undefined],
    ]);
    expect(reads.filter((uri) => uri === forUser)).toEqual([forUser]);
  });

  it("a resource listed over the byte cap is not read: the binding's maxBytes or the registry's, whichever is lower", async () => {
    const bound = await startWithListing({
      policy: { bindings: { support: { servers: ['gitnexus', 'notes'], maxBytes: 2000 } } },
    });
    const byBinding = await bound.provider.provide({
      pipelineId: 'support',
      message: { attachments: [{ server: 'notes', uri: big }] },
    });
    expect(fates(byBinding.trace)).toEqual([
      {
        uri: big,
        status: 'omitted',
        reason:
          "listed at 5000 bytes, over the byte cap of 2000: not read (raise the binding's maxBytes or the registry's maxReadBytes to read it)",
        cache: 'bypass',
        tokens: 0,
      },
    ]);
    expect(bound.reads.filter((uri) => uri === big)).toEqual([]);

    const capped = await startWithListing({ maxReadBytes: 3000 });
    const byRegistry = await capped.provider.provide({
      pipelineId: 'support',
      message: { attachments: [{ server: 'notes', uri: big }] },
    });
    expect(byRegistry.trace.entries.map((entry) => entry.reason)).toEqual([
      "listed at 5000 bytes, over the byte cap of 3000: not read (raise the binding's maxBytes or the registry's maxReadBytes to read it)",
    ]);

    const open = await startWithListing();
    const read = await open.provider.provide({
      pipelineId: 'support',
      message: { attachments: [{ server: 'notes', uri: big }] },
    });
    expect(read.trace.entries.map((entry) => [entry.status, entry.bytes])).toEqual([['injected', 5000]]);
  });
});
