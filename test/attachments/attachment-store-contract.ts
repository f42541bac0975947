import { describe, expect, it } from 'vitest';
import type { AttachmentStore } from '../../src/attachments/attachment-store.js';
import { smallestUsefulCut } from '../../src/budget/smallest-useful-cut.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
import { ContextError } from '../../src/errors.js';

let shared: Tokenizer | undefined;
/** The stores' default tokenizer (o200k_base), for computing the minimum the test expects. */
function tokenizer(): Tokenizer {
  shared ??= createTiktokenTokenizer();
  return shared;
}

/**
 * The behaviour every AttachmentStore shares. Each store runs this suite, then its own
 * regressions. `createStore` returns a fresh, empty store.
 */
export function testAttachmentStore(name: string, createStore: () => Promise<AttachmentStore>): void {
  describe(`${name} (AttachmentStore contract)`, () => {
    it('pins and lists per scope, oldest first, with id and addedAt', async () => {
      const store = await createStore();
      const first = await store.pin({
        scope: { pipelineId: 'support' },
        server: 'gitnexus',
        uri: 'gitnexus://repos',
      });
      const second = await store.pin({
        scope: { pipelineId: 'support' },
        server: 'gitnexus',
        uri: 'gitnexus://setup',
        priority: 3,
        maxTokens: 500,
      });
      await store.pin({ scope: { conversationId: 'c-1' }, server: 'gitnexus', uri: 'gitnexus://repos' });

      const pins = await store.list({ pipelineId: 'support' });
      expect(pins.map((pin) => ('uri' in pin ? pin.uri : pin.template))).toEqual([
        'gitnexus://repos',
        'gitnexus://setup',
      ]);
      expect(pins[1]).toMatchObject({ id: second.id, priority: 3, maxTokens: 500 });
      expect(first.id).not.toBe(second.id);
      expect(Number.isNaN(Date.parse(first.addedAt))).toBe(false);
      expect(await store.list({ conversationId: 'c-1' })).toHaveLength(1);
      expect(await store.list({ conversationId: 'c-2' })).toEqual([]);
      await store.close?.();
    });

    it('lists every pin of every scope oldest first, at most the limit, when it can (listAll)', async () => {
      const store = await createStore();
      if (!store.listAll) return;
      await store.pin({ scope: { pipelineId: 'support' }, server: 'gitnexus', uri: 'gitnexus://repos' });
      await store.pin({ scope: { conversationId: 'c-1' }, server: 'gitnexus', uri: 'gitnexus://setup' });
      await store.pin({ scope: { pipelineId: 'other' }, server: 'docs', uri: 'docs://a' });
      const all = await store.listAll(10);
      expect(all.map((pin) => [pin.scope, 'uri' in pin ? pin.uri : pin.template])).toEqual([
        [{ pipelineId: 'support' }, 'gitnexus://repos'],
        [{ conversationId: 'c-1' }, 'gitnexus://setup'],
        [{ pipelineId: 'other' }, 'docs://a'],
      ]);
      expect(await store.listAll(2)).toHaveLength(2);
      await store.close?.();
    });

    it('keeps the ignoreAudience and skill options of a pin', async () => {
      const store = await createStore();
      await store.pin({
        scope: { pipelineId: 'p' },
        server: 'workspace',
        uri: 'workspace://handbook',
        ignoreAudience: true,
      });
      await store.pin({
        scope: { pipelineId: 'p' },
        server: 'workspace',
        uri: 'skill://git-workflow/SKILL.md',
        skill: true,
      });
      await store.pin({ scope: { pipelineId: 'p' }, server: 'workspace', uri: 'workspace://guide' });
      const pins = await store.list({ pipelineId: 'p' });
      expect(pins.map((pin) => [pin.ignoreAudience, pin.skill])).toEqual([
        [true, undefined],
        [undefined, true],
        [undefined, undefined],
      ]);
      await store.close?.();
    });

    it('keeps templates with their arguments', async () => {
      const store = await createStore();
      await store.pin({
        scope: { conversationId: 'c-42' },
        server: 'gitnexus',
        template: 'gitnexus://repo/{name}/context',
        arguments: { name: 'acme-shop' },
      });
      const [pin] = await store.list({ conversationId: 'c-42' });
      expect(pin).toMatchObject({
        template: 'gitnexus://repo/{name}/context',
        arguments: { name: 'acme-shop' },
      });
      await store.close?.();
    });

    it('re-pinning the same target updates that pin in place: same id, addedAt and place, new options', async () => {
      const store = await createStore();
      const first = await store.pin({
        scope: { pipelineId: 'p' },
        server: 's',
        uri: 'x://a',
        maxTokens: 1000,
      });
      await store.pin({ scope: { pipelineId: 'p' }, server: 's', uri: 'x://b' });
      const again = await store.pin({
        scope: { pipelineId: 'p' },
        server: 's',
        uri: 'x://a',
        maxTokens: 2000,
        priority: 5,
      });
      expect(again).toMatchObject({ id: first.id, addedAt: first.addedAt, maxTokens: 2000, priority: 5 });
      const pins = await store.list({ pipelineId: 'p' });
      expect(pins.map((pin) => ('uri' in pin ? pin.uri : ''))).toEqual(['x://a', 'x://b']);
      expect(pins[0]).toEqual(again);
      // Identical again: the same pin comes back, nothing is added (a write: a new version).
      const identical = await store.pin({
        scope: { pipelineId: 'p' },
        server: 's',
        uri: 'x://a',
        maxTokens: 2000,
        priority: 5,
      });
      expect(identical).toEqual({ ...again, version: expect.any(String) });
      expect(identical.version).not.toBe(again.version);
      expect(await store.list({ pipelineId: 'p' })).toHaveLength(2);
      await store.close?.();
    });

    it('versions each pin: kept while it is unchanged, new on each write of it; a pin removed and added again is a new (id, version)', async () => {
      const store = await createStore();
      const scope = { pipelineId: 'p' };
      const versions = async () => (await store.list(scope)).map((pin) => [pin.id, pin.version] as const);
      const a = await store.pin({ scope, server: 's', uri: 'x://a' });
      const b = await store.pin({ scope, server: 's', template: 'x://{b}', arguments: { b: '1' } });
      expect(typeof a.version).toBe('string');
      expect(await versions()).toEqual([
        [a.id, a.version],
        [b.id, b.version],
      ]);
      // Unchanged by listing again, by another scope's pins, by a write of another pin.
      await store.pin({ scope: { conversationId: 'c' }, server: 's', uri: 'x://a' });
      await store.list(scope);
      const updated = await store.pin({ scope, server: 's', uri: 'x://a', priority: 5 });
      expect(updated.id).toBe(a.id);
      expect(updated.version).not.toBe(a.version);
      expect(await versions()).toEqual([
        [a.id, updated.version],
        [b.id, b.version],
      ]);
      const seen = new Set([`${a.id}@${a.version}`, `${a.id}@${updated.version}`]);
      // Removed and added again: a new id, so no (id, version) seen before comes back.
      expect(await store.unpin(a.id)).toBe(true);
      expect(await versions()).toEqual([[b.id, b.version]]);
      const again = await store.pin({ scope, server: 's', uri: 'x://a', priority: 5 });
      expect(seen.has(`${again.id}@${again.version}`)).toBe(false);
      expect(await versions()).toEqual([
        [b.id, b.version],
        [again.id, again.version],
      ]);
      await store.close?.();
    });

    it('a template and its arguments name the same target as the URI they expand to', async () => {
      const store = await createStore();
      const first = await store.pin({
        scope: { conversationId: 'c' },
        server: 's',
        template: 'x://repo/{name}',
        arguments: { name: 'acme' },
      });
      const again = await store.pin({ scope: { conversationId: 'c' }, server: 's', uri: 'x://repo/acme' });
      expect(again.id).toBe(first.id);
      expect(await store.list({ conversationId: 'c' })).toEqual([again]);
      // Other arguments, another scope or another server: other targets.
      await store.pin({
        scope: { conversationId: 'c' },
        server: 's',
        template: 'x://repo/{name}',
        arguments: { name: 'beta' },
      });
      await store.pin({ scope: { pipelineId: 'c' }, server: 's', uri: 'x://repo/acme' });
      await store.pin({ scope: { conversationId: 'c' }, server: 't', uri: 'x://repo/acme' });
      expect(await store.list({ conversationId: 'c' })).toHaveLength(3);
      await store.close?.();
    });

    it('refuses a maxTokens below the smallest useful cut, naming the minimum, and stores nothing', async () => {
      const store = await createStore();
      const error = await store
        .pin({ scope: { pipelineId: 'p' }, server: 's', uri: 'x://a', maxTokens: 100 })
        .catch((caught: unknown) => caught);
      expect(ContextError.isInstance(error)).toBe(true);
      const minimum = await smallestUsefulCut(
        { scope: 'pipeline', server: 's', uri: 'x://a' },
        tokenizer(),
        64,
      );
      expect(minimum).toBeGreaterThan(100);
      expect(error).toMatchObject({
        code: 'INVALID_ATTACHMENT',
        field: 'pin.maxTokens',
        value: 100,
        limit: minimum,
      });
      expect((error as Error).message).toContain(`below ${minimum}`);
      await expect(
        store.pin({ scope: { pipelineId: 'p' }, server: 's', uri: 'x://a', maxTokens: minimum - 1 }),
      ).rejects.toMatchObject({ limit: minimum });
      expect(await store.list({ pipelineId: 'p' })).toEqual([]);
      const pin = await store.pin({
        scope: { pipelineId: 'p' },
        server: 's',
        uri: 'x://a',
        maxTokens: minimum,
      });
      expect(pin.maxTokens).toBe(minimum);
      await store.close?.();
    });

    it('unpins by id and says whether the pin existed', async () => {
      const store = await createStore();
      const pin = await store.pin({ scope: { pipelineId: 'p' }, server: 's', uri: 'x://a' });
      expect(await store.unpin(pin.id)).toBe(true);
      expect(await store.unpin(pin.id)).toBe(false);
      expect(await store.list({ pipelineId: 'p' })).toEqual([]);
      await store.close?.();
    });

    it('returns pins the caller cannot change the store through (copies, or frozen records)', async () => {
      const store = await createStore();
      await store.pin({
        scope: { pipelineId: 'p' },
        server: 's',
        template: 'x://{a}',
        arguments: { a: '1' },
      });
      const [pin] = await store.list({ pipelineId: 'p' });
      try {
        (pin as unknown as { arguments: Record<string, string> }).arguments.a = 'changed';
      } catch (error) {
        // A frozen record refuses the write (ES modules are strict).
        expect(error).toBeInstanceOf(TypeError);
      }
      const [again] = await store.list({ pipelineId: 'p' });
      expect(again).toMatchObject({ arguments: { a: '1' } });
      await store.close?.();
    });

    it('keeps nothing the caller passed: changing it after pin() changes no stored pin', async () => {
      const store = await createStore();
      const input = {
        scope: { pipelineId: 'p' },
        server: 's',
        template: 'x://{a}',
        arguments: { a: ['1', '2'] },
      };
      await store.pin(input);
      input.scope.pipelineId = 'q';
      input.arguments.a.push('3');
      input.arguments.a[0] = 'changed';
      const [pin] = await store.list({ pipelineId: 'p' });
      expect(pin).toMatchObject({ scope: { pipelineId: 'p' }, arguments: { a: ['1', '2'] } });
      await store.close?.();
    });

    it('lists the same frozen pins while a scope is unchanged, a new pin for one re-pinned', async () => {
      const store = await createStore();
      const scope = { pipelineId: 'p' };
      await store.pin({ scope, server: 's', uri: 'x://a' });
      await store.pin({ scope, server: 's', template: 'x://{b}', arguments: { b: ['1', '2'] } });
      const first = await store.list(scope);
      const [a, b] = first;
      expect(Object.isFrozen(a)).toBe(true);
      expect(Object.isFrozen(b)).toBe(true);
      expect(Object.isFrozen((b as { arguments: object }).arguments)).toBe(true);
      expect(await store.list(scope)).toBe(first);
      // Another scope's pin leaves this scope's list as it was.
      await store.pin({ scope: { conversationId: 'c' }, server: 's', uri: 'x://a' });
      expect(await store.list(scope)).toBe(first);

      await store.pin({ scope, server: 's', uri: 'x://a', priority: 5 });
      const second = await store.list(scope);
      expect(second).not.toBe(first);
      expect(second[0]).not.toBe(a);
      expect(second[0]).toMatchObject({ id: a?.id, priority: 5 });
      expect(second[1]).toBe(b);
      expect(first[0]).toBe(a);
      expect(a).not.toHaveProperty('priority');
      await store.close?.();
    });

    it('returns lists the caller cannot change the store through (copies, or frozen arrays)', async () => {
      const store = await createStore();
      await store.pin({ scope: { pipelineId: 'p' }, server: 's', uri: 'x://a' });
      const listed = await store.list({ pipelineId: 'p' });
      try {
        (listed as unknown[]).length = 0;
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
      }
      expect(
        (await store.list({ pipelineId: 'p' })).map((pin) => ('uri' in pin ? pin.uri : pin.template)),
      ).toEqual(['x://a']);
      await store.close?.();
    });

    it.each([
      [{ scope: {}, server: 's', uri: 'x://a' }, 'pin.scope'],
      [{ scope: { pipelineId: 'p' }, server: '', uri: 'x://a' }, 'pin.server'],
      [{ scope: { pipelineId: 'p' }, server: 's', uri: 'x://a', maxTokens: -5 }, 'pin.maxTokens'],
      [{ scope: { pipelineId: 'p' }, server: 's' }, 'pin'],
    ])('refuses a malformed pin with INVALID_ATTACHMENT naming the field (%j)', async (input, field) => {
      const store = await createStore();
      const error = await store.pin(input as never).catch((caught: unknown) => caught);
      expect(ContextError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'INVALID_ATTACHMENT', field });
      await store.close?.();
    });

    it('refuses a template with a missing argument and a URI without a scheme', async () => {
      const store = await createStore();
      await expect(
        store.pin({
          scope: { pipelineId: 'p' },
          server: 's',
          template: 'x://{a}/{b}',
          arguments: { a: '1' },
        }),
      ).rejects.toMatchObject({ code: 'TEMPLATE_ARGUMENT_MISSING', field: 'arguments.b' });
      await expect(
        store.pin({ scope: { pipelineId: 'p' }, server: 's', uri: 'no scheme here' }),
      ).rejects.toMatchObject({
        code: 'INVALID_URI',
      });
      expect(await store.list({ pipelineId: 'p' })).toEqual([]);
      await store.close?.();
    });
  });
}
