import { describe, expect, it, onTestFinished } from 'vitest';
import type { AccessPolicyOptions } from '../../src/policy/access-policy.js';
import type { InjectionTrace } from '../../src/types.js';
import { startControlledServer } from '../support/controlled-server.js';
import { startProviderHarness } from '../support/provider-harness.js';

const low = 'doc://low';
const high = 'doc://high';
// Each document alone fills the budget: the one ranked first takes it, the other is left out.
const document = (word: string) => [{ uri: word, mimeType: 'text/plain', text: `${word} `.repeat(600) }];
const tokensOf = (trace: InjectionTrace, uri: string) =>
  trace.entries.find((entry) => entry.uri === uri)?.tokens ?? 0;

/**
 * A controlled server named `docs` listing two documents, `doc://high` with the higher
 * `annotations.priority`; both pinned to `support`, the low one first (equal scope and pin
 * priority: only the listing can rank the high one first). The budget holds one of them.
 */
async function startListingRace(policy?: AccessPolicyOptions) {
  const server = startControlledServer({ [low]: document(low), [high]: document(high) });
  server.setAnnotations(low, { priority: 0.1 });
  server.setAnnotations(high, { priority: 0.9 });
  onTestFinished(async () => {
    await server.close();
  });
  const harness = await startProviderHarness('memory', {
    extraServers: { docs: server.serverConfig },
    ...(policy && { policy }),
    provider: { budget: { maxTokens: 900, strategy: 'priority' } },
  });
  for (const uri of [low, high]) {
    await harness.attachments.pin({ scope: { pipelineId: 'support' }, server: 'docs', uri });
  }
  return { ...harness, server };
}

describe('the listing is never on a turn’s critical path', () => {
  it('a turn injects what it read while resources/list is still held; a later turn ranks by the listed priority', async () => {
    const { provider, server } = await startListingRace();
    const heldList = server.holdNextList();

    const first = await provider.provide({ pipelineId: 'support' });
    // The turn finished although the server has not answered the listing yet.
    await heldList.started;
    expect(tokensOf(first.trace, low)).toBeGreaterThan(0);
    expect(tokensOf(first.trace, high)).toBe(0);

    heldList.release();
    await provider.listingsSettled();
    const second = await provider.provide({ pipelineId: 'support' });
    expect(tokensOf(second.trace, high)).toBeGreaterThan(0);
    expect(tokensOf(second.trace, low)).toBe(0);
    expect(server.listCount()).toBe(1);
  });

  it('after list_changed, turns rank with the listing they had while one refresh runs in the background', async () => {
    const { provider, server } = await startListingRace();
    await provider.provide({ pipelineId: 'support' });
    await provider.listingsSettled();

    const refreshed = new Promise((resolve) => provider.once('cache-invalidated', resolve));
    await server.notifyListChanged();
    await refreshed;
    server.setAnnotations(low, { priority: 1 });
    server.setAnnotations(high, { priority: 0 });
    const heldList = server.holdNextList();

    const [during, alsoDuring] = await Promise.all([
      provider.provide({ pipelineId: 'support' }),
      provider.provide({ pipelineId: 'support', conversationId: 'c-2' }),
    ]);
    await heldList.started;
    // The listing known before the change still ranks; both turns share one refresh.
    expect(tokensOf(during.trace, high)).toBeGreaterThan(0);
    expect(tokensOf(alsoDuring.trace, high)).toBeGreaterThan(0);
    expect(server.listCount()).toBe(2);

    heldList.release();
    await provider.listingsSettled();
    const after = await provider.provide({ pipelineId: 'support' });
    expect(tokensOf(after.trace, low)).toBeGreaterThan(0);
    expect(tokensOf(after.trace, high)).toBe(0);
  });

  it('a listing that fails is reported as an event, never thrown into a turn', async () => {
    const { provider, server } = await startListingRace();
    const heldList = server.holdNextList();
    const failed = new Promise<unknown>((resolve) => provider.once('listing-failed', resolve));
    const turn = await provider.provide({ pipelineId: 'support' });
    await heldList.started;
    server.breakLists();
    heldList.release();
    expect(await failed).toMatchObject({ server: 'docs', error: { code: expect.any(String) } });
    expect(tokensOf(turn.trace, low)).toBeGreaterThan(0);
  });

  it('a pipeline without the list operation causes no resources/list on its behalf', async () => {
    const { provider, server } = await startListingRace({
      bindings: { support: { servers: ['gitnexus', { name: 'docs', operations: ['read'] }] } },
    });
    const first = await provider.provide({ pipelineId: 'support' });
    await provider.listingsSettled();
    const second = await provider.provide({ pipelineId: 'support' });
    expect(server.listCount()).toBe(0);
    // Read, and ranked as pinned: the listing's priorities were never asked for.
    expect(tokensOf(first.trace, low)).toBeGreaterThan(0);
    expect(tokensOf(second.trace, low)).toBeGreaterThan(0);
  });
});
