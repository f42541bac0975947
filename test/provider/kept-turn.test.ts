import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { startWorkspaceFixture } from '../../fixtures/index.js';
import { ContentCache } from '../../src/cache/content-cache.js';
import { PolicyBoundServers } from '../../src/policy/policy-bound-servers.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import type { Telemetry } from '../../src/trace/telemetry.js';
import type { InjectionTrace, Turn } from '../../src/types.js';
import { startControlledServer } from '../support/controlled-server.js';
import { sharedTokenizer, startProviderHarness } from '../support/provider-harness.js';

const uris = ['gitnexus://repos', 'gitnexus://setup', 'gitnexus://repo/acme-shop/schema'];

/** A provider with three pipeline pins, its policy's views counted (one bound per full turn, for step 2). */
async function keptHarness(options: Parameters<typeof startProviderHarness>[1] = {}) {
  const harness = await startProviderHarness('memory', {
    ...options,
    provider: { budget: { maxTokens: 4000 }, ...options.provider },
  });
  for (const uri of uris) {
    await harness.attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri });
  }
  // A turn that runs its steps binds the policy's view for step 2; a kept answer asks the policy alone.
  const bind = vi.spyOn(harness.policy, 'bind');
  /** Whether the turn ran its steps (authorized anything) rather than being answered as kept. */
  const ran = async (turn: Turn) => {
    bind.mockClear();
    const result = await harness.provider.provide(turn);
    return { result, ran: bind.mock.calls.length > 0 };
  };
  return { ...harness, ran };
}

const entry = (trace: InjectionTrace, uri: string) => trace.entries.find((item) => item.uri === uri);
const withoutTurn = ({ turnId: _id, startedAt: _at, durationMs: _ms, ...rest }: InjectionTrace) => rest;

afterEach(() => {
  vi.useRealTimers();
});

describe('a kept turn', () => {
  it('is answered again, unrun, once two full warm turns answered alike: the same blocks and entries, frozen', async () => {
    const { provider, ran } = await keptHarness();
    const turn = { pipelineId: 'support', conversationId: 'c-kept' };
    const cold = await ran(turn);
    const second = await ran(turn);
    const third = await ran(turn);
    const hitsBefore = provider.metrics?.hits ?? 0;
    const fourth = await ran(turn);

    // The cold turn read (not kept); the first two warm turns ran, and answered alike.
    expect([cold.ran, second.ran, third.ran, fourth.ran]).toEqual([true, true, true, false]);
    expect(fourth.result.blocks).toEqual(third.result.blocks);
    expect(withoutTurn(fourth.result.trace)).toEqual(withoutTurn(third.result.trace));
    expect(fourth.result.trace.entries.map((item) => [item.cache, item.change])).toEqual(
      uris.map(() => ['hit', 'unchanged']),
    );
    expect(third.result.trace.turnId).not.toBe(fourth.result.trace.turnId);
    // Each attachment answered is a cache hit, as a full turn's peek counts it.
    expect((provider.metrics?.hits ?? 0) - hitsBefore).toBe(uris.length);
    expect(provider.metrics?.keptTurns).toBe(1);
    expect(Object.isFrozen(fourth.result.trace.entries[0])).toBe(true);
    // The very arrays of the turn it repeats (frozen), not copies.
    expect(fourth.result.blocks).toBe(third.result.blocks);
    expect(fourth.result.trace.entries).toBe(third.result.trace.entries);
  });

  it("answers frozen arrays, as every turn's are: a host cannot empty them, so no later answer changes", async () => {
    const { ran } = await keptHarness();
    const turn = { pipelineId: 'support' };
    const cold = await ran(turn);
    await ran(turn);
    const third = await ran(turn);
    for (const { result } of [cold, third]) {
      expect(Object.isFrozen(result.blocks)).toBe(true);
      expect(Object.isFrozen(result.trace.entries)).toBe(true);
    }
    const blocks = structuredClone(third.result.blocks);
    const entries = structuredClone(third.result.trace.entries);
    expect(() => {
      (third.result.blocks as unknown[]).length = 0;
    }).toThrow(TypeError);
    expect(() => {
      (third.result.trace.entries as unknown[]).push(entries[0]);
    }).toThrow(TypeError);
    const fourth = await ran(turn);
    expect(fourth.ran).toBe(false);
    expect(fourth.result.blocks).toEqual(blocks);
    expect(fourth.result.trace.entries).toEqual(entries);
    expect(blocks.length).toBeGreaterThan(1);
  });

  it('is still answered after the cache let go of contents it does not hold', async () => {
    const cache = new ContentCache();
    const { ran } = await keptHarness({ provider: { cache } });
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    await cache.read({ server: 'elsewhere', uri: 'x://other' }, async () => ({
      contents: [{ uri: 'x://other', mimeType: 'text/plain', text: 'other' }],
    }));
    cache.invalidateResource('elsewhere', 'x://other');

    const after = await ran(turn);
    expect(after.ran).toBe(false);
    expect(after.result.trace.entries.map((item) => item.cache)).toEqual(uris.map(() => 'hit'));
  });

  it("answers in a trace of the turn's own: its turnId, its start and duration, no conversation when it names none", async () => {
    const { ran } = await keptHarness();
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    const before = Date.now();
    const kept = await ran({ ...turn, turnId: 't-kept' });
    expect(kept.ran).toBe(false);
    const { trace } = kept.result;
    expect(trace.turnId).toBe('t-kept');
    expect(trace).not.toHaveProperty('conversationId');
    expect(Date.parse(trace.startedAt)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(trace.startedAt)).toBeLessThanOrEqual(Date.now());
    expect(trace.durationMs).toBeGreaterThanOrEqual(0);
    expect(trace.durationMs).toBeLessThan(1_000);
    expect(trace.budget).toEqual({
      maxTokens: 4000,
      usedTokens: expect.any(Number),
      tokenizer: 'tiktoken:o200k_base',
      exact: true,
      margin: 0,
    });
    expect(trace.budget.usedTokens).toBeGreaterThan(0);
  });

  it('is not answered after a resource it injected was updated: the next turn re-reads it', async () => {
    const { provider, fixture, ran } = await keptHarness({ fixture: { subscribe: true } });
    const turn = { pipelineId: 'support', conversationId: 'c-updated' };
    for (let index = 0; index < 3; index++) await ran(turn);
    await provider.subscriptionsSettled();
    expect((await ran(turn)).ran).toBe(false);
    const invalidated = new Promise((resolve) => provider.once('cache-invalidated', resolve));
    await fixture.reindex();
    await invalidated;

    const after = await ran(turn);
    expect(after.ran).toBe(true);
    expect(entry(after.result.trace, 'gitnexus://repos')).toMatchObject({ cache: 'miss', change: 'changed' });
    expect(fixture.readCount('gitnexus://repos')).toBe(2);
  });

  it('is not answered once a content it holds is past the cache TTL', async () => {
    const { fixture, ran } = await keptHarness({ provider: { cache: { ttlMs: 150 } } });
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    expect((await ran(turn)).ran).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, 200));

    const after = await ran(turn);
    expect(after.ran).toBe(true);
    expect(after.result.trace.entries.map((item) => item.cache)).toEqual(uris.map(() => 'miss'));
    expect(fixture.readCount('gitnexus://repos')).toBe(2);
  });

  it('is not answered after a listing change (list_changed) of a server it consulted', async () => {
    const { provider, fixture, ran } = await keptHarness({ fixture: { listChanged: true } });
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    await provider.listingsSettled();
    for (let index = 0; index < 2; index++) await ran(turn);
    expect((await ran(turn)).ran).toBe(false);
    const invalidated = new Promise((resolve) => provider.once('cache-invalidated', resolve));
    await fixture.reindex();
    await invalidated;

    expect((await ran(turn)).ran).toBe(true);
  });

  it('is not answered after a pin was added or removed', async () => {
    const { attachments, ran } = await keptHarness();
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    const added = await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      uri: 'gitnexus://repo/acme-shop/context',
    });

    const withAdded = await ran(turn);
    expect(withAdded.ran).toBe(true);
    expect(withAdded.result.trace.entries.map((item) => item.uri)).toContain(
      'gitnexus://repo/acme-shop/context',
    );
    await attachments.unpin(added.id);
    const withRemoved = await ran(turn);
    expect(withRemoved.ran).toBe(true);
    expect(withRemoved.result.trace.entries.map((item) => item.uri)).toEqual(uris);
  });

  it("is kept per actor and conversation: another conversation's first turn is its own, all new", async () => {
    const { provider, ran } = await keptHarness();
    for (let index = 0; index < 3; index++) await ran({ pipelineId: 'support', conversationId: 'c-one' });
    expect((await ran({ pipelineId: 'support', conversationId: 'c-one' })).ran).toBe(false);

    const other = await ran({ pipelineId: 'support', conversationId: 'c-two' });
    expect(other.ran).toBe(true);
    expect(other.result.trace.entries.map((item) => item.change)).toEqual(uris.map(() => 'new'));
    expect(other.result.trace.conversationId).toBe('c-two');
    expect((await ran({ pipelineId: 'support', conversationId: 'c-two', principal: 'alice' })).ran).toBe(
      true,
    );
    expect(provider.metrics?.keptTurns).toBe(3);
  });

  it('is not answered to a turn with other message text or another model', async () => {
    const { ran } = await keptHarness();
    const turn = { pipelineId: 'support', message: { text: 'where is the schema?' } };
    for (let index = 0; index < 3; index++) await ran(turn);
    expect((await ran(turn)).ran).toBe(false);

    expect((await ran({ ...turn, message: { text: 'and the setup?' } })).ran).toBe(true);
    // Its first full turn follows one with other text: a second must answer alike before it is kept.
    expect((await ran({ ...turn, message: { text: 'and the setup?' } })).ran).toBe(true);
    for (let index = 0; index < 2; index++) await ran(turn);
    expect((await ran({ ...turn, model: { images: true } })).ran).toBe(true);
  });

  it('gives way to a full turn a second after the last one, which uses the caches as every turn does', async () => {
    const { ran } = await keptHarness();
    const turn = { pipelineId: 'support' };
    // The clock stands still from before the full turns: the last one is kept at this very instant
    // (a clock stopped after it would add however long the machine took in between).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    for (let index = 0; index < 3; index++) await ran(turn);
    expect((await ran(turn)).ran).toBe(false);
    vi.setSystemTime(Date.now() + 999);
    expect((await ran(turn)).ran).toBe(false);
    vi.setSystemTime(Date.now() + 2);
    const full = await ran(turn);
    expect(full.ran).toBe(true);
    expect(full.result.trace.entries.map((item) => item.cache)).toEqual(uris.map(() => 'hit'));
    // Still kept: the full turn answered alike.
    expect((await ran(turn)).ran).toBe(false);
  });

  it('still ends ABORTED when the host aborted the turn', async () => {
    const { ran, provider } = await keptHarness();
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    await expect(provider.provide({ ...turn, signal: AbortSignal.abort() })).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });

  it('is answered to turns telemetry does not record and to turns it records alike: telemetry changes no path', async () => {
    let sampled = false;
    const started: string[] = [];
    const recorded: string[] = [];
    const telemetry: Telemetry = {
      startSpan: (name) => {
        if (!sampled) return undefined;
        started.push(name);
        return { setAttributes: () => {}, recordError: () => {}, end: () => {} };
      },
      withSpan: (_span, run) => run(),
      traceContext: () => undefined,
      recordRequest: () => {},
      recordTurn: (trace) => recorded.push(trace.turnId),
      recordInvalidation: () => {},
    };
    const { ran } = await keptHarness({ provider: { telemetry } });
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    const unrecorded = await ran(turn);
    expect(unrecorded.ran).toBe(false);
    expect(recorded.at(-1)).toBe(unrecorded.result.trace.turnId);

    // A recorded turn is answered the same way: its turn span and its metrics, no step of its own.
    sampled = true;
    const sampledTurn = await ran(turn);
    expect(sampledTurn.ran).toBe(false);
    expect(started).toEqual(['mcp-context turn', 'mcp-context resolve']);
    expect(recorded.at(-1)).toBe(sampledTurn.result.trace.turnId);
    expect(sampledTurn.result.blocks).toBe(unrecorded.result.blocks);
    sampled = false;
    expect((await ran(turn)).ran).toBe(false);
  });

  it('is made with server instructions, answered with the same section and trace, until any session opens', async () => {
    const workspace = await startWorkspaceFixture({ transport: 'memory' });
    onTestFinished(() => workspace.close());
    const { ran, servers } = await keptHarness({
      fixture: { instructions: 'Read gitnexus://repos before anything else.' },
      extraServers: { workspace: workspace.serverConfig },
      provider: { serverInstructions: { maxTokens: 256 } },
    });
    const turn = { pipelineId: 'support' };
    const runs = [await ran(turn), await ran(turn), await ran(turn), await ran(turn)];
    expect(runs.map((run) => run.ran)).toEqual([true, true, true, false]);
    const [, , third, kept] = runs;
    expect(kept?.result.blocks).toBe(third?.result.blocks);
    expect(kept?.result.blocks.some((block) => block.kind === 'instructions')).toBe(true);
    expect(kept?.result.trace.instructions).toEqual([
      expect.objectContaining({ server: 'gitnexus', status: 'included' }),
    ]);
    expect(kept?.result.trace.instructions).toEqual(third?.result.trace.instructions);

    // A session opened (here another server's, first used now): it may have brought other
    // instructions, so the next turn runs; two more alike are kept again.
    await servers.getInstructions('workspace');
    expect((await ran(turn)).ran).toBe(true);
    expect((await ran(turn)).ran).toBe(true);
    expect((await ran(turn)).ran).toBe(false);
  });

  it("is not made while one server's instructions fail, though another's are included: every turn runs and asks again", async () => {
    const workspace = await startWorkspaceFixture({ transport: 'memory' });
    onTestFinished(() => workspace.close());
    const { ran, servers, attachments, provider } = await keptHarness({
      fixture: { instructions: 'Read gitnexus://repos before anything else.' },
      extraServers: { workspace: workspace.serverConfig },
      provider: { serverInstructions: { maxTokens: 256 } },
    });
    await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'workspace',
      uri: 'workspace://guide',
    });
    const getInstructions = servers.getInstructions.bind(servers);
    const asked = vi
      .spyOn(servers, 'getInstructions')
      .mockImplementation(async (server, ...rest) =>
        server === 'workspace'
          ? Promise.reject(new Error('instructions unavailable'))
          : getInstructions(server, ...rest),
      );
    const turn = { pipelineId: 'support' };
    // The listings first: the guide's first turn with them frames it anew.
    await ran(turn);
    await provider.listingsSettled();
    const runs = [await ran(turn), await ran(turn), await ran(turn), await ran(turn)];
    expect(runs.map((run) => run.ran)).toEqual([true, true, true, true]);
    expect(runs[3]?.result.trace.instructions?.map((entry) => [entry.server, entry.status]).sort()).toEqual([
      ['gitnexus', 'included'],
      ['workspace', 'error'],
    ]);
    expect(asked.mock.calls.filter(([server]) => server === 'workspace')).toHaveLength(5);
  });

  it('is made with server instructions on for a turn of no attachments, which places none', async () => {
    const { provider } = await startProviderHarness('memory', {
      provider: { serverInstructions: { maxTokens: 256 }, budget: { maxTokens: 4000 } },
    });
    const results = [];
    for (let index = 0; index < 4; index++) results.push(await provider.provide({ pipelineId: 'support' }));
    expect(results.map((result) => result.trace.instructions)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    // The fourth is the third's kept answer: its very blocks.
    expect(results[3]?.blocks).toBe(results[2]?.blocks);
    expect(provider.metrics?.keptTurns).toBe(1);
  });

  it("is made for a turn with a budget of its own: one equal to the last turn's (a new object each turn) is answered kept", async () => {
    const { provider, ran } = await keptHarness();
    const withBudget = () => ({ pipelineId: 'support', budget: { maxTokens: 3000 } });
    const runs = [];
    for (let index = 0; index < 4; index++) runs.push(await ran(withBudget()));
    expect(runs.map((run) => run.ran)).toEqual([true, true, true, false]);
    expect(runs[3]?.result.trace.budget).toMatchObject({ maxTokens: 3000, usedTokens: expect.any(Number) });
    expect(runs[3]?.result.blocks).toBe(runs[2]?.result.blocks);
    expect(provider.metrics?.keptTurns).toBe(1);
  });

  it('runs a turn whose budget changed in full, whichever field changed, and keeps it again once answered alike', async () => {
    const { ran } = await keptHarness();
    const turn = { pipelineId: 'support', budget: { maxTokens: 3000 } };
    for (let index = 0; index < 3; index++) await ran(turn);
    expect((await ran(turn)).ran).toBe(false);

    const smaller = await ran({ ...turn, budget: { maxTokens: 2000 } });
    expect(smaller.ran).toBe(true);
    expect(smaller.result.trace.budget.maxTokens).toBe(2000);
    // Back to the first budget: the kept answer was replaced, so two full turns again.
    expect((await ran(turn)).ran).toBe(true);
    expect((await ran(turn)).ran).toBe(true);
    expect((await ran(turn)).ran).toBe(false);
    // A field other than maxTokens: a full turn too.
    expect((await ran({ ...turn, budget: { maxTokens: 3000, strategy: 'priority' } })).ran).toBe(true);
    expect((await ran({ ...turn, budget: { maxTokens: 3000, truncation: 'tail' } })).ran).toBe(true);
  });

  it("is answered to a turn without a budget of its own after turns whose budget equals the provider's", async () => {
    const { ran } = await keptHarness();
    const own = { pipelineId: 'support', budget: { maxTokens: 4000 } };
    for (let index = 0; index < 3; index++) await ran(own);
    expect((await ran({ pipelineId: 'support' })).ran).toBe(false);
  });

  it('is bounded by keptTurns.maxTurns, the least recent forgotten; keptTurns: false runs every turn', async () => {
    const bounded = await keptHarness({ provider: { keptTurns: { maxTurns: 2 } } });
    for (const conversationId of ['c-1', 'c-2', 'c-3']) {
      for (let index = 0; index < 3; index++) await bounded.ran({ pipelineId: 'support', conversationId });
    }
    expect(bounded.provider.metrics?.keptTurns).toBe(2);
    expect((await bounded.ran({ pipelineId: 'support', conversationId: 'c-3' })).ran).toBe(false);
    expect((await bounded.ran({ pipelineId: 'support', conversationId: 'c-1' })).ran).toBe(true);

    const off = await keptHarness({ provider: { keptTurns: false } });
    for (let index = 0; index < 3; index++) await off.ran({ pipelineId: 'support' });
    expect((await off.ran({ pipelineId: 'support' })).ran).toBe(true);
    expect(off.provider.metrics?.keptTurns).toBe(0);
  });

  it("is made with a policy of the host's own too, which it asks again every turn: a changed decision runs the next turn", async () => {
    const { policy } = await keptHarness();
    let denied = false;
    const decisions = vi.fn((request: Parameters<typeof policy.authorize>[0]) =>
      denied && request.operation === 'read'
        ? { allowed: false as const, reason: 'revoked by the host' }
        : policy.authorize(request),
    );
    // The library's policy behind a host's own object (as a host's dynamic policy would be passed).
    const own = {
      authorize: decisions,
      bind: (servers: Parameters<typeof policy.bind>[0], principal: Parameters<typeof policy.bind>[1]) =>
        new PolicyBoundServers(servers, own, principal),
      requireKnown: policy.requireKnown.bind(policy),
      refuseUnknownServers: policy.refuseUnknownServers.bind(policy),
      allowsUri: policy.allowsUri.bind(policy),
    } as unknown as typeof policy;
    const { servers, attachments } = await startProviderHarness('memory');
    const provider = new ResourceContextProvider({
      servers,
      attachments,
      policy: own,
      tokenizer: sharedTokenizer,
      budget: { maxTokens: 4000 },
    });
    onTestFinished(() => provider.dispose());
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    for (let index = 0; index < 4; index++) await provider.provide({ pipelineId: 'support' });
    decisions.mockClear();
    const kept = await provider.provide({ pipelineId: 'support' });
    expect(decisions).toHaveBeenCalled();
    expect(provider.metrics?.keptTurns).toBe(1);
    expect(kept.trace.entries.map((item) => item.status)).toEqual(['injected']);
    // The host's policy now refuses the read: the next turn is not answered as kept.
    denied = true;
    const after = await provider.provide({ pipelineId: 'support' });
    expect(after.trace.entries.map((item) => [item.status, item.error?.code])).toEqual([
      ['denied', 'POLICY_DENIED'],
    ]);
    expect(after.blocks).toEqual([]);
  });

  it('is not answered after a listing it was answered without arrives', async () => {
    const { servers, provider, ran } = await keptHarness();
    const listResources = servers.listResources.bind(servers);
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    vi.spyOn(servers, 'listResources').mockImplementation(async (...args) => {
      await held;
      return listResources(...args);
    });
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    expect((await ran(turn)).ran).toBe(false);
    release();
    await provider.listingsSettled();

    expect((await ran(turn)).ran).toBe(true);
  });

  it('is made with an attachment its listing left out unread, and one its listing annotates', async () => {
    const workspace = await startWorkspaceFixture({ transport: 'memory' });
    onTestFinished(() => workspace.close());
    const { provider, attachments, ran } = await keptHarness({
      extraServers: { workspace: workspace.serverConfig },
    });
    for (const uri of ['workspace://guide', 'workspace://handbook']) {
      await attachments.pin({ scope: { pipelineId: 'support' }, server: 'workspace', uri });
    }
    const turn = { pipelineId: 'support' };
    await ran(turn);
    await provider.listingsSettled();
    const runs: boolean[] = [];
    for (let index = 0; index < 3; index++) runs.push((await ran(turn)).ran);
    const kept = await ran(turn);
    // The first turn with the listing frames the guide anew (its lastModified): two more answer alike.
    expect([...runs, kept.ran]).toEqual([true, true, true, false]);
    // The handbook is for the user alone: left out unread, as the full turns left it.
    expect(entry(kept.result.trace, 'workspace://handbook')).toMatchObject({ status: 'omitted' });
    expect(entry(kept.result.trace, 'workspace://guide')).toMatchObject({ status: 'injected', cache: 'hit' });
    expect(workspace.readCount('workspace://handbook')).toBe(1);
  });

  it("is made of a turn that injected nothing, which checks no history: another turn's injection into the conversation leaves it answered", async () => {
    const workspace = await startWorkspaceFixture({ transport: 'memory' });
    onTestFinished(() => workspace.close());
    const { provider, attachments, ran } = await keptHarness({
      extraServers: { workspace: workspace.serverConfig },
      // Support's turns list nothing: no listing of theirs moves the generation the kept turn holds.
      policy: {
        bindings: {
          support: { servers: ['gitnexus'], operations: ['read', 'subscribe'] },
          quiet: { servers: ['workspace'] },
        },
      },
    });
    // The handbook is for the user alone: once listed, it is left out unread.
    await attachments.pin({
      scope: { pipelineId: 'quiet' },
      server: 'workspace',
      uri: 'workspace://handbook',
    });
    const quiet = { pipelineId: 'quiet', conversationId: 'c-quiet' };
    await ran(quiet);
    await provider.listingsSettled();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const runs: boolean[] = [];
    for (let index = 0; index < 3; index++) runs.push((await ran(quiet)).ran);
    expect(runs).toEqual([true, true, false]);

    // Support's turn in the same conversation records its three resources in its history.
    const support = await ran({ pipelineId: 'support', conversationId: 'c-quiet' });
    expect(support.result.trace.entries.map((item) => item.change)).toEqual(uris.map(() => 'new'));
    const after = await ran(quiet);
    expect(after.ran).toBe(false);
    expect(after.result.trace.entries).toEqual([
      expect.objectContaining({ uri: 'workspace://handbook', status: 'omitted' }),
    ]);
    expect(after.result.trace.entries[0]).not.toHaveProperty('change');
    expect(workspace.readCount('workspace://handbook')).toBe(1);
  });

  it('is never made of reads (ttlMs 0), though every duration were 0', async () => {
    // A clock that stands still: the turns' entries, durations included, come out alike.
    vi.useFakeTimers({ toFake: ['Date', 'performance'], now: 1_000_000 });
    const { fixture, ran } = await keptHarness({
      provider: { cache: { ttlMs: 0 } },
      // No listing (no `list`): nothing else tells the turns apart.
      policy: { bindings: { support: { servers: ['gitnexus'], operations: ['read', 'subscribe'] } } },
    });
    const runs: boolean[] = [];
    for (let index = 0; index < 5; index++) runs.push((await ran({ pipelineId: 'support' })).ran);
    expect(runs).toEqual([true, true, true, true, true]);
    expect(fixture.readCount('gitnexus://repos')).toBe(5);
  });

  it('is never made of a failure answered from a cached copy (a binding that refuses its media type), though every duration were 0', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'performance'], now: 1_000_000 });
    const { attachments, ran } = await keptHarness({
      policy: {
        bindings: {
          support: { servers: ['gitnexus'], operations: ['read', 'subscribe'] },
          strict: { servers: ['gitnexus'], operations: ['read'], mimeTypes: ['image/png'] },
        },
      },
    });
    // Support's turn caches the three; strict's pin of one of them is a hit its binding refuses.
    await ran({ pipelineId: 'support' });
    await attachments.pin({ scope: { pipelineId: 'strict' }, server: 'gitnexus', uri: 'gitnexus://repos' });
    const turns = [];
    for (let index = 0; index < 4; index++) turns.push(await ran({ pipelineId: 'strict' }));
    expect(turns.map((each) => each.ran)).toEqual([true, true, true, true]);
    expect(turns[3]?.result.trace.entries[0]).toMatchObject({ status: 'denied', cache: 'hit' });
  });

  it("an agent's turn is never answered with the kept turn of a principal of the same name", async () => {
    const { ran } = await keptHarness({
      policy: {
        bindings: { support: { servers: ['gitnexus'] } },
        agents: { triage: { servers: [{ name: 'gitnexus', resources: ['gitnexus://repos'] }] } },
      },
    });
    const asPrincipal = { pipelineId: 'support', principal: 'triage' };
    for (let index = 0; index < 3; index++) await ran(asPrincipal);
    expect((await ran(asPrincipal)).ran).toBe(false);

    const asAgent = await ran({ pipelineId: 'support', agentId: 'triage' });
    expect(asAgent.ran).toBe(true);
    expect(asAgent.result.trace.entries.map((item) => item.status)).toEqual(['injected', 'denied', 'denied']);
  });

  it('is not answered after a pin was replaced by another (as many pins as before)', async () => {
    const { attachments, ran } = await keptHarness();
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    const [first] = await attachments.list({ pipelineId: 'support' });
    await attachments.unpin(first?.id ?? '');
    await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'gitnexus',
      uri: 'gitnexus://repo/acme-shop/context',
    });

    const replaced = await ran(turn);
    expect(replaced.ran).toBe(true);
    expect(replaced.result.trace.entries.map((item) => item.uri)).toContain(
      'gitnexus://repo/acme-shop/context',
    );
    expect(replaced.result.trace.entries).toHaveLength(3);
  });

  it('is not made for a turn that loads a skill: its entry is asked for every turn', async () => {
    const workspace = await startWorkspaceFixture({ transport: 'memory' });
    onTestFinished(() => workspace.close());
    const { servers, attachments, ran } = await keptHarness({
      extraServers: { workspace: workspace.serverConfig },
    });
    await attachments.pin({
      scope: { pipelineId: 'support' },
      server: 'workspace',
      uri: 'skill://git-workflow/SKILL.md',
      skill: true,
    });
    const getSkill = vi.spyOn(servers, 'getSkill');
    const turn = { pipelineId: 'support' };
    const runs: boolean[] = [];
    for (let index = 0; index < 4; index++) runs.push((await ran(turn)).ran);
    const last = await ran(turn);
    expect([...runs, last.ran]).toEqual([true, true, true, true, true]);
    expect(getSkill).toHaveBeenCalledTimes(5);
    expect(entry(last.result.trace, 'skill://git-workflow/SKILL.md')).toMatchObject({
      status: 'injected',
      cache: 'hit',
      skillName: 'git-workflow',
    });
  });

  it('is not answered to a turn that bypasses the cache', async () => {
    const { fixture, ran } = await keptHarness();
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    const bypassing = await ran({ ...turn, bypassCache: true });
    expect(bypassing.ran).toBe(true);
    expect(bypassing.result.trace.entries.map((item) => item.cache)).toEqual(uris.map(() => 'bypass'));
    expect(fixture.readCount('gitnexus://repos')).toBe(2);
  });

  it("is not answered once another turn changed the conversation's history", async () => {
    const { fixture, ran } = await keptHarness();
    const turn = { pipelineId: 'support', conversationId: 'c-history' };
    for (let index = 0; index < 3; index++) await ran(turn);
    expect((await ran(turn)).ran).toBe(false);
    // Changed on the server, unannounced: a bypassing turn injects the new version.
    await fixture.reindex();
    const bypassing = await ran({ ...turn, bypassCache: true });
    expect(entry(bypassing.result.trace, 'gitnexus://repos')?.change).toBe('changed');

    const after = await ran(turn);
    expect(after.ran).toBe(true);
  });

  it('subscribes its pins again when another turn of its pipeline changed what the pipeline holds', async () => {
    const { provider, ran } = await keptHarness({
      fixture: { subscribe: true },
      policy: {
        bindings: { support: { servers: ['gitnexus'] } },
        agents: { narrow: { servers: [{ name: 'gitnexus', resources: ['gitnexus://repos'] }] } },
      },
    });
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    const subscribed = async () => {
      await provider.subscriptionsSettled();
      return provider.subscriptions.map((item) => item.uri).sort();
    };
    expect(await subscribed()).toEqual([...uris].sort());
    // The narrower agent's turn holds one pin of the pipeline: the others are unsubscribed.
    await ran({ ...turn, agentId: 'narrow' });
    expect(await subscribed()).toEqual(['gitnexus://repos']);

    expect((await ran(turn)).ran).toBe(false);
    expect(await subscribed()).toEqual([...uris].sort());
  });

  it('is bounded by keptTurns.maxBytes: a turn whose blocks exceed it is not kept; the bytes held are reported', async () => {
    const roomy = await keptHarness();
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await roomy.ran(turn);
    const kept = await roomy.ran(turn);
    expect(kept.ran).toBe(false);
    const text = kept.result.blocks.reduce((total, block) => total + block.text.length, 0);
    // Two bytes a UTF-16 unit of its blocks, and an estimate of its arrays and records.
    expect(roomy.provider.metrics?.keptTurnBytes).toBe(2 * text + 64 * uris.length + 1024);

    const small = await keptHarness({ provider: { keptTurns: { maxBytes: 2 * text } } });
    for (let index = 0; index < 3; index++) await small.ran(turn);
    expect((await small.ran(turn)).ran).toBe(true);
    expect(small.provider.metrics).toMatchObject({ keptTurns: 0, keptTurnBytes: 0 });
  });
});

describe('a kept turn, by the clock', () => {
  it('gives way to a full turn exactly a second after the last full one', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    const { ran } = await keptHarness();
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    vi.setSystemTime(1_000_999);
    expect((await ran(turn)).ran).toBe(false);
    vi.setSystemTime(1_001_000);
    expect((await ran(turn)).ran).toBe(true);
  });

  it('is not answered from the instant its first content is ttlMs old', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    const { ran } = await keptHarness({ provider: { cache: { ttlMs: 10_000 } } });
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    // A full turn at 9.5 s (a second since the last one), answered alike: still kept.
    vi.setSystemTime(1_009_500);
    expect((await ran(turn)).ran).toBe(true);
    vi.setSystemTime(1_009_999);
    expect((await ran(turn)).ran).toBe(false);
    vi.setSystemTime(1_010_000);
    const expired = await ran(turn);
    expect(expired.ran).toBe(true);
    expect(expired.result.trace.entries.map((item) => item.cache)).toEqual(uris.map(() => 'miss'));
  });

  it("starts the refresh of a listing past its TTL that it consulted, as a full turn's lookup would, and stays kept when it answers the same", async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    const { servers, provider, ran } = await keptHarness({ provider: { cache: { ttlMs: 10_000 } } });
    const lists = vi.spyOn(servers, 'listResources');
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    await provider.listingsSettled();
    // The contents read again (a bypass) at 9.5 s: fresh for 10 s more, while the listing of 0 s ages.
    vi.setSystemTime(1_009_500);
    await ran({ ...turn, bypassCache: true });
    for (let index = 0; index < 2; index++) await ran(turn);
    expect((await ran(turn)).ran).toBe(false);
    const listed = lists.mock.calls.length;

    vi.setSystemTime(1_010_200);
    expect((await ran(turn)).ran).toBe(false);
    expect(lists.mock.calls.length).toBe(listed + 1);
    await provider.listingsSettled();
    // The refreshed listing says what the last one said: nothing the kept turn depends on moved
    // (a listing that changed is a full turn: see the list_changed and arriving-listing cases).
    expect((await ran(turn)).ran).toBe(false);
    expect(lists.mock.calls.length).toBe(listed + 1);
  });

  it('asks no listing of a server the pipeline may not list, kept or not', async () => {
    const { servers, ran } = await keptHarness({
      policy: { bindings: { support: { servers: ['gitnexus'], operations: ['read', 'subscribe'] } } },
    });
    const lists = vi.spyOn(servers, 'listResources');
    const turn = { pipelineId: 'support' };
    for (let index = 0; index < 3; index++) await ran(turn);
    // A kept turn starts no listing on the pipeline's behalf either.
    expect((await ran(turn)).ran).toBe(false);
    expect(lists).not.toHaveBeenCalled();
  });
});

describe('a kept turn, by its bytes', () => {
  it('counts the media parts of its blocks, two bytes a unit of their base64 data', async () => {
    // A 1×1 PNG, pinned on a server of its own and taken by the model as an image part.
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
    const server = startControlledServer({
      'img://pixel': [{ uri: 'img://pixel', mimeType: 'image/png', blob: png }],
    });
    onTestFinished(async () => {
      await server.close();
    });
    const { provider, attachments, ran } = await keptHarness({
      extraServers: { controlled: server.serverConfig },
    });
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'controlled', uri: 'img://pixel' });
    const turn = { pipelineId: 'support', model: { images: true } };
    for (let index = 0; index < 3; index++) await ran(turn);
    const kept = await ran(turn);
    expect(kept.ran).toBe(false);
    const parts = kept.result.blocks.flatMap((block) =>
      block.kind === 'resource' ? (block.parts ?? []) : [],
    );
    expect(parts.map((part) => part.data)).toEqual([png]);
    const text = kept.result.blocks.reduce((total, block) => total + block.text.length, 0);
    expect(provider.metrics?.keptTurnBytes).toBe(2 * text + 2 * png.length + 64 * (uris.length + 1) + 1024);
  });
});
