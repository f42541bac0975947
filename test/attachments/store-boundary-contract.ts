import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AttachmentStore } from '../../src/attachments/attachment-store.js';
import { ContextError } from '../../src/errors.js';
import type { PinInput } from '../../src/types.js';

/** `length` ASCII characters no compressor shrinks (a PostgreSQL index compresses what it can). */
function incompressible(length: number): string {
  return randomBytes(length).toString('base64url').slice(0, length);
}

async function failureOf(promise: Promise<unknown>): Promise<ContextError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!ContextError.isInstance(error)) throw new Error(`expected a ContextError, got ${String(error)}`);
  return error;
}

const ok = { scope: { pipelineId: 'p' }, server: 's', uri: 'x://a' } as const;

/**
 * What every AttachmentStore refuses and keeps at the API boundary (src/options/boundary-text.ts):
 * ids and URIs that are not well-formed Unicode, hold NUL or are over their byte limit are bad
 * input, typed and naming the field and the limit, never a store failure; what the rule admits,
 * up to its limits, every store holds and keeps apart.
 */
export function testStoreBoundary(name: string, createStore: () => Promise<AttachmentStore>): void {
  describe(`${name} (ids and URIs at the boundary)`, () => {
    it.each([
      ['NUL in a scope id', { ...ok, scope: { conversationId: 'c\u0000' } }, 'pin.scope.conversationId', 256],
      [
        'a lone surrogate in a scope id',
        { ...ok, scope: { pipelineId: 'p-\uD800' } },
        'pin.scope.pipelineId',
        256,
      ],
      [
        'a scope id over 256 bytes',
        { ...ok, scope: { pipelineId: '漢'.repeat(86) } },
        'pin.scope.pipelineId',
        256,
      ],
      ['NUL in a server name', { ...ok, server: 'crm\u0000' }, 'pin.server', 256],
      ['a lone surrogate in a server name', { ...ok, server: '\uDC00crm' }, 'pin.server', 256],
      ['NUL in a URI', { ...ok, uri: 'x://a\u0000b' }, 'pin.uri', 2048],
      ['a lone surrogate in a URI', { ...ok, uri: 'x://\uD83D' }, 'pin.uri', 2048],
      ['a URI over 2048 bytes', { ...ok, uri: `x://${'a'.repeat(2045)}` }, 'pin.uri', 2048],
      [
        'NUL in a template argument',
        { scope: ok.scope, server: 's', template: 'x://{a}', arguments: { a: '\u0000' } },
        'pin.arguments.a',
        2048,
      ],
      [
        'a template whose expansion is over 2048 bytes',
        {
          scope: ok.scope,
          server: 's',
          template: 'x://{a}/{b}',
          arguments: { a: 'a'.repeat(1100), b: 'b'.repeat(1100) },
        },
        'template',
        2048,
      ],
    ])(
      'refuses %s as INVALID_ATTACHMENT naming the field and the limit, storing nothing',
      async (_, input, field, limit) => {
        const store = await createStore();
        const error = await failureOf(store.pin(input as PinInput));
        expect(error).toMatchObject({ code: 'INVALID_ATTACHMENT', field, limit });
        expect(error.message).toContain(`${field}: `);
        expect(error.message).toContain(`1 to ${limit} bytes of well-formed UTF-8 without NUL`);
        if (store.listAll) expect(await store.listAll(10)).toEqual([]);
        await store.close?.();
      },
    );

    it('two conversation ids that differ only in lone surrogates are refused, not stored as one', async () => {
      const store = await createStore();
      for (const conversationId of ['c-\uD800', 'c-\uD801']) {
        const error = await failureOf(store.pin({ ...ok, scope: { conversationId } }));
        expect(error).toMatchObject({ code: 'INVALID_ATTACHMENT', field: 'pin.scope.conversationId' });
        await expect(store.list({ conversationId })).rejects.toMatchObject({
          code: 'INVALID_OPTION',
          field: 'scope.conversationId',
          limit: 256,
        });
      }
      // The replacement character itself is an ordinary character: its own conversation.
      await store.pin({ ...ok, scope: { conversationId: 'c-\uFFFD' } });
      expect(await store.list({ conversationId: 'c-\uFFFD' })).toHaveLength(1);
      await store.close?.();
    });

    it('refuses a bad scope to list, a bad id to unpin and a bad limit as INVALID_OPTION', async () => {
      const store = await createStore();
      await expect(store.list({ pipelineId: 'p\u0000' })).rejects.toMatchObject({
        code: 'INVALID_OPTION',
        field: 'scope.pipelineId',
        limit: 256,
      });
      await expect(store.list({ pipelineId: 'p'.repeat(257) })).rejects.toMatchObject({
        code: 'INVALID_OPTION',
        field: 'scope.pipelineId',
      });
      await expect(store.unpin('pin\u0000')).rejects.toMatchObject({
        code: 'INVALID_OPTION',
        field: 'id',
        limit: 256,
      });
      await expect(store.unpin('\uDFFF')).rejects.toMatchObject({ code: 'INVALID_OPTION', field: 'id' });
      if (store.listAll) {
        await expect(store.listAll(-1)).rejects.toMatchObject({ code: 'INVALID_OPTION', field: 'limit' });
      }
      await store.close?.();
    });

    it('holds ids and a URI at their limits (256, 256 and 2048 bytes, incompressible) and lists them as given', async () => {
      const store = await createStore();
      const scope = { conversationId: incompressible(256) };
      const server = incompressible(256);
      const uri = `x://${incompressible(2044)}`;
      const pin = await store.pin({ scope, server, uri });
      expect(await store.list(scope)).toEqual([pin]);
      expect(pin).toMatchObject({ scope, server, uri });
      expect(await store.unpin(pin.id)).toBe(true);
      await store.close?.();
    });

    it('keeps apart ids that differ in astral characters, normalization or case', async () => {
      const store = await createStore();
      const ids = ['c-😀', 'c-😁', 'c-é', 'c-e\u0301', 'C-é', `c-${'😀'.repeat(63)}`];
      for (const conversationId of ids) await store.pin({ ...ok, scope: { conversationId } });
      for (const conversationId of ids) {
        expect(await store.list({ conversationId })).toMatchObject([{ scope: { conversationId } }]);
      }
      await store.close?.();
    });
  });
}
