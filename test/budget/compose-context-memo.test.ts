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
  it('attachments without a content key: composed anew every turn, and nothing kept for them', async () => {
    const { tokenizer, calls } = createCharTokenizer({ bounded: true, prefix: true });
    const derived = new DerivedCache();
    const keyless = items.map(({ contentKey: _, ...rest }) => rest);
    const first = await composeContext(keyless, tokenizer, { ...base, derived });
    calls.length = 0;
    expect(await composeContext(keyless, tokenizer, { ...base, derived })).toEqual(first);
    // Measured and rendered again, each cut counted around its body's known count, as planned
    // then as grown (from its end: the open tag's newline before a letter is a safe join): only
    // the frames' costs are reused (keyed by what a frame names).
    expect(calls).toEqual([
      'count 192',
      'encodeWithin start 843',
      'encodeWithin start 843',
      ...['count 3', 'count 9', 'count 141', 'count 174', 'count 6', 'count 142', 'count 171'],
      ...['count 3', 'count 5', 'count 141', 'count 170', 'count 6', 'count 142', 'count 171'],
    ]);
    expect(derived.bytesHeld).toBe(0);
  });

  it('other attachments under the same options are another composition', async () => {
    const { tokenizer } = createCharTokenizer({ bounded: true, prefix: true });
    const derived = new DerivedCache();
    const others = [item(0, lines(5, 'gamma')), item(1, lines(5, 'delta'))].map((other, index) => ({
      ...other,
      contentKey: `other-${index}`,
    }));
    const expected = await composeContext(others, tokenizer, base);
    await composeContext(items, tokenizer, { ...base, derived });
    expect(await composeContext(others, tokenizer, { ...base, derived })).toEqual(expected);
  });

  it('the same first and last attachments with another one between them are another composition', async () => {
    const { tokenizer } = createCharTokenizer({ bounded: true, prefix: true });
    const derived = new DerivedCache();
    const three = { ...base, renderOrder: [0, 1, 2] };
    const middle = (label: string) => ({ ...item(1, lines(20, label)), contentKey: `middle-${label}` });
    const [first, last] = [item(0, lines(20, 'first')), item(2, lines(20, 'last'))];
    await composeContext([first, middle('beta'), last], tokenizer, { ...three, derived });
    const changed = [first, middle('gamma'), last];
    const composed = await composeContext(changed, tokenizer, { ...three, derived });
    expect(composed).toEqual(await composeContext(changed, tokenizer, three));
    expect(composed.blocks.map((block) => block.text).join('')).toContain('gamma 1:');
  });

  it('an option left at its default and the same option spelled out are one composition; a query only relevant cuts read', async () => {
    const { tokenizer, calls } = createCharTokenizer({ bounded: true, prefix: true });
    const derived = new DerivedCache();
    const first = await composeContext(items, tokenizer, { ...base, derived });
    calls.length = 0;
    const spelled = { truncation: 'head', lineAware: true, safetyMargin: 0, query: 'beta 60' } as const;
    expect(await composeContext(items, tokenizer, { ...base, ...spelled, derived })).toEqual(first);
    expect(calls).toEqual([]);

    const relevant = await composeContext(items, tokenizer, { ...base, truncation: 'relevant', derived });
    calls.length = 0;
    const emptyQuery = { ...base, truncation: 'relevant', query: '', derived } as const;
    expect(await composeContext(items, tokenizer, emptyQuery)).toEqual(relevant);
    expect(calls).toEqual([]);
  });

  it('a composition made anew reuses every rendering whose content, share, cut, model and tokenizer are unchanged, but a relevant cut that read the message', async () => {
    const { tokenizer, calls } = createCharTokenizer({ bounded: true, prefix: true });
    const derived = new DerivedCache();
    const reordered = { ...base, renderOrder: [1, 0] };
    const first = await composeContext(items, tokenizer, { ...base, derived });
    const spelled = { truncation: 'head', lineAware: true, query: 'beta 60' } as const;
    calls.length = 0;
    const again = await composeContext(items, tokenizer, { ...reordered, ...spelled, derived });
    // Only the preamble is counted: each body's measure, frame cost and rendering are reused.
    expect(calls).toEqual(['count 192']);
    expect(again.blocks.slice(1)).toEqual([first.blocks[2], first.blocks[1]]);
    expect(again.attachments).toEqual(first.attachments);

    await composeContext(items, tokenizer, { ...base, truncation: 'relevant', derived });
    calls.length = 0;
    await composeContext(items, tokenizer, { ...reordered, truncation: 'relevant', query: '', derived });
    expect(calls).toEqual(['count 192']);

    // A relevant cut that read the message is kept for its turn only: made anew, it is cut again.
    const asked = { truncation: 'relevant', query: 'beta 60', derived } as const;
    const cut = await composeContext(items, tokenizer, { ...base, ...asked });
    expect(cut.attachments.map(({ decision }) => decision.fate)).toEqual(['truncated', 'truncated']);
    calls.length = 0;
    await composeContext(items, tokenizer, { ...reordered, ...asked });
    expect(calls[0]).toBe('count 192');
    expect(calls.length).toBeGreaterThan(1);
  });

  it('keys do not run into each other: options, attachments, and the renderings of one content under two names', async () => {
    const { tokenizer } = createCharTokenizer({ bounded: true, prefix: true });
    let derived = new DerivedCache();
    // maxTokens 2001 and minTokens 11, or 20011 and 1: the same digits in a row.
    await composeContext(items, tokenizer, { ...base, maxTokens: 2001, minTokens: 11, derived });
    const roomy = { ...base, maxTokens: 20011, minTokens: 1 };
    expect(await composeContext(items, tokenizer, { ...roomy, derived })).toEqual(
      await composeContext(items, tokenizer, roomy),
    );

    // Render orders 1,0,10 and 10,1,0: the same digits in a row.
    derived = new DerivedCache();
    const eleven = Array.from({ length: 11 }, (_, index) => item(index, lines(1, `item ${index}`)));
    const rest = [2, 3, 4, 5, 6, 7, 8, 9];
    await composeContext(eleven, tokenizer, { ...roomy, renderOrder: [1, 0, 10, ...rest], derived });
    const other = { ...roomy, renderOrder: [10, 1, 0, ...rest] };
    const reordered = await composeContext(eleven, tokenizer, { ...other, derived });
    expect(reordered).toEqual(await composeContext(eleven, tokenizer, other));
    expect(
      reordered.blocks.slice(1, 4).map((block) => block.kind === 'resource' && block.provenance.uri),
    ).toEqual(['docs://page/10', 'docs://page/1', 'docs://page/0']);

    // One content served as docs + x://a and as doc + sx://a: its frame names each server.
    const named = (server: string, uri: string): ComposableAttachment => ({
      ...item(1, lines(3, 'shared')),
      provenance: { scope: 'pipeline', server, uri, mimeType: 'text/plain', sha256: '1'.repeat(64) },
    });
    derived = new DerivedCache();
    await composeContext([named('docs', 'x://a')], tokenizer, { ...base, renderOrder: [0], derived });
    const second = await composeContext([named('doc', 'sx://a')], tokenizer, {
      ...base,
      renderOrder: [0],
      derived,
    });
    expect(second).toEqual(
      await composeContext([named('doc', 'sx://a')], tokenizer, { ...base, renderOrder: [0] }),
    );
    expect(second.blocks[1]?.text).toContain('<mcp-resource server="doc" uri="sx://a"');
  });

  it('one content framed as a skill and as a plain resource: each rendered and costed as its own frame, in either order', async () => {
    const { tokenizer } = createCharTokenizer({ bounded: true, prefix: true });
    const plain = item(1, lines(40, 'skill body'));
    const skill: ComposableAttachment = {
      ...plain,
      provenance: {
        ...plain.provenance,
        skill: { name: 'git-workflow', description: 'Follow the conventions. '.repeat(20) },
      },
    };
    const lastModified: ComposableAttachment = {
      ...plain,
      provenance: { ...plain.provenance, lastModified: '2026-01-02T03:04:05Z' },
    };
    const single = { ...base, renderOrder: [0] };
    // Whole, and cut: the skill frame's extra cost must come out of the cut's share.
    for (const maxTokens of [20_000, 1_500]) {
      const options = { ...single, maxTokens };
      for (const [earlier, later] of [
        [plain, skill],
        [skill, plain],
        [plain, lastModified],
      ] as const) {
        const derived = new DerivedCache();
        await composeContext([earlier], tokenizer, { ...options, derived });
        const reused = await composeContext([later], tokenizer, { ...options, derived });
        expect(reused).toEqual(await composeContext([later], tokenizer, options));
        expect(reused.usedTokens).toBeLessThanOrEqual(maxTokens);
      }
    }
  });
});
