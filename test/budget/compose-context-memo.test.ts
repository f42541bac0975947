import { describe, expect, it } from 'vitest';
import {
  type ComposableAttachment,
  type ComposeOptions,
  composeContext,
} from '../../src/budget/compose-context.js';
import { DerivedCache } from '../../src/cache/derived-cache.js';
import { createCharTokenizer } from './char-tokenizer.js';

// A warm turn's composition is reused whole when nothing it depends on changed. Each input
// the key leaves out would hand a later turn a composition made for other options: these tests
// compare every reuse with the same composition made without the memo.

const lines = (count: number, label: string) =>
  Array.from({ length: count }, (_, index) => `${label} ${index + 1}: the service validates the cart`).join(
    '\n',
  );

function item(index: number, body: string): ComposableAttachment {
  return {
    provenance: {
      scope: index === 0 ? 'message' : 'pipeline',
      server: 'docs',
      uri: `docs://page/${index}`,
      mimeType: 'text/plain',
      sha256: String(index).repeat(64),
    },
    sections: [
      { kind: 'text', uri: `docs://page/${index}`, mimeType: 'text/plain', bytes: body.length, text: body },
    ],
    contentKey: `content-${index}`,
  };
}

const items = [item(0, lines(60, 'alpha')), item(1, lines(60, 'beta'))];
const base: ComposeOptions = { maxTokens: 2000, minTokens: 10, strategy: 'fair', renderOrder: [0, 1] };

describe('composeContext with a derived memo', () => {
  it('no attachments: nothing composed', async () => {
    const { tokenizer, calls } = createCharTokenizer({ bounded: true, prefix: true });
    expect(await composeContext([], tokenizer, { ...base, derived: new DerivedCache() })).toEqual({
      blocks: [],
      usedTokens: 0,
      attachments: [],
    });
    expect(calls).toEqual([]);
  });

  it('the same attachments and options again: the same composition, with no count at all', async () => {
    const { tokenizer, calls } = createCharTokenizer({ bounded: true, prefix: true });
    const derived = new DerivedCache();
    const first = await composeContext(items, tokenizer, { ...base, derived });
    expect(first.usedTokens).toBeLessThanOrEqual(2000);
    expect(calls.length).toBeGreaterThan(0);
    calls.length = 0;
    const again = await composeContext(items, tokenizer, { ...base, derived });
    expect(calls).toEqual([]);
    expect(again).toEqual(first);
    // The blocks array is the caller's: changing it changes no later composition.
    again.blocks.length = 0;
    expect((await composeContext(items, tokenizer, { ...base, derived })).blocks).toEqual(first.blocks);
  });

  it.each<[string, Partial<ComposeOptions>]>([
    ['maxTokens', { maxTokens: 1500 }],
    ['minTokens', { minTokens: 1200 }],
    ['strategy', { strategy: 'priority' }],
    ['safetyMargin', { safetyMargin: 0.2 }],
    ['truncation', { truncation: 'tail' }],
    ['lineAware', { lineAware: false }],
    ['reserve', { reserve: { message: 1400 } }],
    ['renderOrder', { renderOrder: [1, 0] }],
    ['query (relevant cuts)', { truncation: 'relevant', query: 'beta 60' }],
  ])('another %s composes anew, as it would without the memo', async (_, change) => {
    const { tokenizer } = createCharTokenizer({ bounded: true, prefix: true });
    const derived = new DerivedCache();
    const before = await composeContext(items, tokenizer, {
      ...base,
      ...(change.query !== undefined && { truncation: 'relevant', query: 'alpha 1' }),
      derived,
    });
    const expected = await composeContext(items, tokenizer, { ...base, ...change });
    expect(expected).not.toEqual(before);
    expect(await composeContext(items, tokenizer, { ...base, ...change, derived })).toEqual(expected);
  });

  it('another tokenizer composes anew', async () => {
    const derived = new DerivedCache();
    const first = createCharTokenizer({ bounded: true, prefix: true });
    await composeContext(items, first.tokenizer, { ...base, derived });
    const second = createCharTokenizer({ bounded: true, prefix: true });
    const renamed = { ...second.tokenizer, name: 'test:chars-2' };
    await composeContext(items, renamed, { ...base, derived });
    expect(second.calls.length).toBeGreaterThan(0);
  });
});
