import { describe, expect, it } from 'vitest';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import { testAttachmentStore } from './attachment-store-contract.js';
import { testStoreBoundary } from './store-boundary-contract.js';

testAttachmentStore('MemoryAttachmentStore', async () => new MemoryAttachmentStore());
testStoreBoundary('MemoryAttachmentStore', async () => new MemoryAttachmentStore());

describe('MemoryAttachmentStore lists', () => {
  it("answers a scope's same frozen array while its pins are unchanged, a new one once they change", async () => {
    const store = new MemoryAttachmentStore();
    const first = await store.pin({ scope: { pipelineId: 'p' }, server: 's', uri: 'x://a' });
    const listed = await store.list({ pipelineId: 'p' });
    expect(Object.isFrozen(listed)).toBe(true);
    expect(await store.list({ pipelineId: 'p' })).toBe(listed);
    // Another scope's change leaves this scope's list as it was.
    await store.pin({ scope: { conversationId: 'c' }, server: 's', uri: 'x://a' });
    expect(await store.list({ pipelineId: 'p' })).toBe(listed);

    // Re-pinning (an update in place), pinning and unpinning each answer a new list.
    const repinned = await store.pin({ scope: { pipelineId: 'p' }, server: 's', uri: 'x://a', priority: 3 });
    const afterRepin = await store.list({ pipelineId: 'p' });
    expect(afterRepin).not.toBe(listed);
    expect(afterRepin).toEqual([repinned]);
    await store.pin({ scope: { pipelineId: 'p' }, server: 's', uri: 'x://b' });
    const afterPin = await store.list({ pipelineId: 'p' });
    expect(afterPin.map((pin) => ('uri' in pin ? pin.uri : pin.template))).toEqual(['x://a', 'x://b']);
    expect(await store.unpin(first.id)).toBe(true);
    expect(
      (await store.list({ pipelineId: 'p' })).map((pin) => ('uri' in pin ? pin.uri : pin.template)),
    ).toEqual(['x://b']);
    expect(listed).toEqual([first]);
  });

  it('answers an empty frozen list for a scope without pins, also once its last pin is gone', async () => {
    const store = new MemoryAttachmentStore();
    expect(await store.list({ conversationId: 'none' })).toEqual([]);
    const pin = await store.pin({ scope: { conversationId: 'c' }, server: 's', uri: 'x://a' });
    expect(await store.list({ conversationId: 'c' })).toEqual([pin]);
    await store.unpin(pin.id);
    const empty = await store.list({ conversationId: 'c' });
    expect(empty).toEqual([]);
    expect(Object.isFrozen(empty)).toBe(true);
    const again = await store.pin({ scope: { conversationId: 'c' }, server: 's', uri: 'x://a' });
    expect(await store.list({ conversationId: 'c' })).toEqual([again]);
  });
});
