import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { SqliteAttachmentStore } from '../../src/sqlite.js';
import type { Turn } from '../../src/types.js';
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
