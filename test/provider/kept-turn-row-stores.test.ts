import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import type { AttachmentStore } from '../../src/attachments/attachment-store.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { SqliteAttachmentStore } from '../../src/sqlite.js';
import type { Attachment, Turn } from '../../src/types.js';
import { startProviderHarness } from '../support/provider-harness.js';

const uris = ['gitnexus://repos', 'gitnexus://setup', 'gitnexus://repo/acme-shop/schema'];

/** Two stores on one SQLite file: the provider's, and another writer's (another process or replica). */
function sqliteStores() {
  const directory = mkdtempSync(join(tmpdir(), 'mcp-context-kept-'));
  const path = join(directory, 'pins.db');
  const store = new SqliteAttachmentStore(path);
  const writer = new SqliteAttachmentStore(path);
  onTestFinished(async () => {
    await store.close();
    await writer.close();
    rmSync(directory, { recursive: true, force: true });
  });
  return { store, writer };
}

describe('kept turns over a row store (SQLite)', () => {
  it('are answered unrun while its rows are unchanged; another writer’s unpin runs the next turn, without that pin', async () => {
    const { store, writer } = sqliteStores();
    const harness = await startProviderHarness('memory', {
      attachments: store,
      provider: { budget: { maxTokens: 4000 } },
    });
    for (const uri of uris) await store.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri });
    // A turn that runs its steps binds the policy's view for step 2; a kept answer asks the policy alone.
    const bind = vi.spyOn(harness.policy, 'bind');
    const ran = async (turn: Turn) => {
      bind.mockClear();
      const result = await harness.provider.provide(turn);
      return { result, ran: bind.mock.calls.length > 0 };
    };
    const turn = { pipelineId: 'support' };
    const runs = [await ran(turn), await ran(turn), await ran(turn), await ran(turn)];
    expect(runs.map((run) => run.ran)).toEqual([true, true, true, false]);
    expect(runs[3]?.result.blocks).toBe(runs[2]?.result.blocks);
    expect(harness.provider.metrics?.keptTurns).toBe(1);

    const [, setup] = await writer.list({ pipelineId: 'support' });
    expect(await writer.unpin(setup?.id ?? '')).toBe(true);
    const after = await ran(turn);
    expect(after.ran).toBe(true);
    expect(after.result.trace.entries.map((entry) => entry.uri)).toEqual([uris[0], uris[2]]);
  });
});

/** A host's own store: every list a new array of new, unfrozen copies of the pins, as `copy` makes them. */
function copyingStore(copy: (pin: Attachment) => Attachment): AttachmentStore & { lists: number } {
  const inner = new MemoryAttachmentStore();
  const store = {
    lists: 0,
    pin: (input: Parameters<AttachmentStore['pin']>[0]) => inner.pin(input),
    unpin: (id: string) => inner.unpin(id),
    list: async (scope: Parameters<AttachmentStore['list']>[0]) => {
      store.lists++;
      return (await inner.list(scope)).map((pin) => copy(structuredClone(pin)));
    },
  };
  return store;
}

async function keptOver(attachments: AttachmentStore) {
  const harness = await startProviderHarness('memory', {
    attachments,
    provider: { budget: { maxTokens: 4000 } },
  });
  for (const uri of uris)
    await attachments.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri });
  const bind = vi.spyOn(harness.policy, 'bind');
  return async (turn: Turn) => {
    bind.mockClear();
    const result = await harness.provider.provide(turn);
    return { result, ran: bind.mock.calls.length > 0 };
  };
}

describe('kept turns over a host’s own store', () => {
  it('are told by the pins’ versions, not their objects: new unfrozen copies each list are kept, a new version runs the turn', async () => {
    const store = copyingStore((pin) => pin);
    const ran = await keptOver(store);
    const turn = { pipelineId: 'support' };
    const runs = [await ran(turn), await ran(turn), await ran(turn), await ran(turn)];
    expect(runs.map((run) => run.ran)).toEqual([true, true, true, false]);
    expect(store.lists).toBe(4);

    // A re-pin with the same options is a write: a new version, a full turn.
    await store.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: uris[1] as string });
    expect((await ran(turn)).ran).toBe(true);
  });

  it('are never made of pins without a version: every turn runs', async () => {
    const ran = await keptOver(copyingStore(({ version: _version, ...pin }) => pin));
    const turn = { pipelineId: 'support' };
    const runs = [await ran(turn), await ran(turn), await ran(turn), await ran(turn)];
    expect(runs.map((run) => run.ran)).toEqual([true, true, true, true]);
    expect(runs[3]?.result.trace.entries.map((entry) => entry.cache)).toEqual(uris.map(() => 'hit'));
  });
});
