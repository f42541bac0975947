import { afterAll, describe, expect, it } from 'vitest';
import { type ComposableAttachment, composeContext } from '../../src/budget/compose-context.js';
import { createTiktokenTokenizer } from '../../src/budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../../src/budget/tokenizer.js';
import { escapeFrameContent } from '../../src/render/frame-resource.js';

const tokenizer = createTiktokenTokenizer();
afterAll(() => tokenizer.dispose());

const body = (index: number) =>
  Array.from({ length: 4000 }, (_, line) => `doc ${index} line ${line}: the quick brown fox`).join('\n');

function attachment(index: number): ComposableAttachment {
  const text = body(index);
  return {
    provenance: {
      scope: 'pipeline',
      server: 'docs',
      uri: `doc://big/${index}`,
      mimeType: 'text/plain',
      sha256: index.toString(16).padStart(64, '0'),
    },
    sections: [
      {
        kind: 'text',
        uri: `doc://big/${index}`,
        mimeType: 'text/plain',
        bytes: Buffer.byteLength(text),
        text: escapeFrameContent(text),
      },
    ],
  };
}

/** The real tokenizer, whose first encoding of a body takes until the clock is past `until`. */
function slowOnce(until: () => number): Tokenizer {
  let slowed = false;
  const slow = () => {
    if (slowed) return;
    slowed = true;
    while (performance.now() <= until());
  };
  return {
    name: tokenizer.name,
    decode: (tokens) => tokenizer.decode(tokens),
    count: (text) => tokenizer.count(text),
    encode: async (text) => {
      const tokens = await tokenizer.encode(text);
      if (text.length > 10_000) slow();
      return tokens;
    },
    encodeWithin: async (text, limitTokens, from, resume) => {
      const encoding = await (tokenizer.encodeWithin as NonNullable<Tokenizer['encodeWithin']>)(
        text,
        limitTokens,
        from,
        resume,
      );
      if (text.length > 10_000) slow();
      return encoding;
    },
    dispose: () => {},
  };
}

const items = Array.from({ length: 6 }, (_, index) => attachment(index));
const options = {
  maxTokens: 4000,
  minTokens: 10,
  strategy: 'fair',
  renderOrder: [0, 1, 2, 3, 4, 5],
} as const;

describe('the budget step stops counting at stopAt', () => {
  it('past the stop, only the first in rank is counted: the others are left out with TURN_DEADLINE, never shown', async () => {
    // A turn that waited out its deadline for a server that never answered still answers with
    // what was ready: the first in rank is counted (bounded by its share), the rest are not.
    const composed = await composeContext(items, tokenizer, { ...options, stopAt: performance.now() - 1 });
    const [first, ...others] = composed.attachments;
    expect(first?.failure).toBeUndefined();
    expect(first?.tokens).toBeGreaterThan(0);
    expect(
      composed.blocks.filter((block) => block.kind === 'resource').map((block) => block.provenance?.uri),
    ).toEqual(['doc://big/0']);
    expect(others.length).toBeGreaterThan(0);
    for (const [index, entry] of others.entries()) {
      expect(entry.tokens).toBe(0);
      expect(entry.failure).toMatchObject({
        code: 'TURN_DEADLINE',
        message: `doc://big/${index + 1} was not counted and rendered by the turn deadline`,
      });
    }
    const text = composed.blocks.map((each) => each.text).join('');
    expect(composed.usedTokens).toBe(await tokenizer.count(text));
    expect(composed.usedTokens).toBeLessThanOrEqual(options.maxTokens);
  });

  it('the stop passing while the first is counted keeps the others out; the first is composed to the end, cut with its marker, within the budget', async () => {
    let stopAt = Number.POSITIVE_INFINITY;
    const slow = slowOnce(() => stopAt);
    stopAt = performance.now() + 30;
    const composed = await composeContext(items, slow, { ...options, stopAt });
    const [first, ...others] = composed.attachments;
    expect(first?.failure).toBeUndefined();
    expect(first?.decision.fate).toBe('truncated');
    for (const entry of others) expect(entry.failure?.code).toBe('TURN_DEADLINE');
    // The preamble and one block: the first attachment's, framed, marked as cut, counted exactly.
    expect(composed.blocks).toHaveLength(2);
    const block = composed.blocks[1];
    expect(block).toMatchObject({ kind: 'resource', provenance: { uri: 'doc://big/0', truncated: true } });
    expect(block?.text).toContain('doc 0 line 0: the quick brown fox');
    expect(block?.text).toMatch(/\[truncated: /);
    expect(block?.text.match(/<mcp-resource /g)).toHaveLength(1);
    expect(block?.text.match(/<\/mcp-resource>/g)).toHaveLength(1);
    const text = composed.blocks.map((each) => each.text).join('');
    expect(composed.usedTokens).toBe(await tokenizer.count(text));
    expect(composed.usedTokens).toBeLessThanOrEqual(options.maxTokens);
  });

  it('a stop that never passes changes nothing: every attachment is composed', async () => {
    const composed = await composeContext(items, tokenizer, { ...options, stopAt: Number.POSITIVE_INFINITY });
    expect(composed.attachments.map((entry) => entry.failure)).toEqual(items.map(() => undefined));
    expect(composed.blocks).toHaveLength(items.length + 1);
  });
});
