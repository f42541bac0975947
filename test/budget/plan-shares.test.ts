import { describe, expect, it } from 'vitest';
import type { ComposableAttachment, ComposeOptions } from '../../src/budget/composable-attachment.js';
import {
  type AttachmentBody,
  modelKey,
  type PlannedAttachment,
  planShares,
} from '../../src/budget/plan-shares.js';
import { DerivedCache } from '../../src/cache/derived-cache.js';
import { EscapedText } from '../../src/render/escaped-text.js';
import type { ScopeKind } from '../../src/types.js';
import { createCharTokenizer } from './char-tokenizer.js';

// With one token per character, the whole frame of docs://page/N (nothing cut) costs 159 tokens,
// a cut's frame and longest marker 300 for a short body and 310 for an estimated 5,000.
function attachment(
  index: number,
  body: string,
  extra: Partial<ComposableAttachment> & { scope?: ScopeKind } = {},
): AttachmentBody {
  const { scope = 'pipeline', ...rest } = extra;
  return {
    item: {
      provenance: {
        scope,
        server: 'docs',
        uri: `docs://page/${index}`,
        mimeType: 'text/plain',
        sha256: String(index).repeat(64),
      },
      sections: [],
      ...rest,
    },
    body: { body, pinnedChars: 0, parts: [], omittedContents: [], injectable: true },
  };
}

const options = (overrides: Partial<ComposeOptions> = {}): ComposeOptions => ({
  maxTokens: 3000,
  minTokens: 10,
  strategy: 'fair',
  renderOrder: [],
  ...overrides,
});

// A short body, a long one, and a long one capped at 700 tokens.
const three = [
  attachment(1, 'a'.repeat(100)),
  attachment(2, 'b'.repeat(5000)),
  attachment(3, 'c'.repeat(5000), { capTokens: 700 }),
];
const truncated = (tokens: number, overhead = 310) => ({
  fate: 'truncated',
  tokens,
  contentTokens: tokens - overhead,
});

/** Each attachment's decision, how many tokens of its body were counted, and its (estimated) total. */
const outcome = (planned: readonly PlannedAttachment[]) =>
  planned.map(({ decision, measure }) => ({
    decision,
    counted: measure.head.tokens.length,
    originalTokens: measure.originalTokens,
    estimated: measure.estimated,
  }));

const fairOutcome = [
  { decision: { fate: 'whole', tokens: 259 }, counted: 100, originalTokens: 100, estimated: false },
  { decision: truncated(2041), counted: 1748, originalTokens: 5000, estimated: true },
  { decision: truncated(700), counted: 701, originalTokens: 5000, estimated: true },
];

describe('planShares', () => {
  it('fair: counts each body as far as an equal share less a guess at its cut, then on from there only where the plan gives more', async () => {
    const { tokenizer, calls } = createCharTokenizer({ bounded: true });
    const planned = await planShares(three, tokenizer, options(), 3000);
    expect(outcome(planned)).toEqual(fairOutcome);
    // 1,000 less the guess (76 or 77: a frame and marker of ~300 characters at 4 a token) plus
    // 16 each (the capped one only to its cap); the long one got 1,731 of content, so a second
    // round goes on from the 941 counted to 1,731 and 16 more, and counts no token twice.
    expect(calls.filter((call) => call.startsWith('encodeWithin'))).toEqual([
      'encodeWithin start 940',
      'encodeWithin start 939',
      'encodeWithin start 700',
      'encodeWithin start 1747 after 940',
    ]);
  });

  it('fair: a body counted past its cut share that may fit whole in an equal share is counted on to it', async () => {
    // 200 tokens available, two bodies: equal shares of 100, cut shares of 100 less 75 plus 16.
    // The 30-token one is counted whole at once; the 90-token one, past its cut share of 41, is
    // counted on to 164 and found whole: the plan sees its exact count, not an estimate.
    const { tokenizer, calls } = createCharTokenizer({ bounded: true });
    const small = [attachment(1, 'a'.repeat(30)), attachment(2, 'b'.repeat(90))];
    const planned = await planShares(small, tokenizer, options(), 200);
    expect(outcome(planned).map(({ counted, estimated }) => ({ counted, estimated }))).toEqual([
      { counted: 30, estimated: false },
      { counted: 90, estimated: false },
    ]);
    expect(calls.filter((call) => call.startsWith('encodeWithin'))).toEqual([
      'encodeWithin start 41',
      'encodeWithin start 41',
      'encodeWithin start 164 after 42',
    ]);
  });

  it('fair: a body whose estimate is exactly its whole share is counted on to it; one token more is not', async () => {
    // 200 tokens available, two bodies: equal shares of 100, so whole shares of 164. Counted to
    // its cut share of 40 (100 less a guess of 76 for a three-digit count, plus 16; 41 seen), a
    // 164-character body is estimated at 164 tokens, within its whole share: counted on to it, it
    // is found whole. At 165 it is estimated past the whole share and could only be cut: counting
    // on to 164 would show nothing the plan can use.
    for (const [length, counted, further] of [
      [164, 164, ['encodeWithin start 164 after 41']],
      [165, 41, []],
    ] as const) {
      const { tokenizer, calls } = createCharTokenizer({ bounded: true });
      const pair = [attachment(1, 'a'.repeat(30)), attachment(2, 'b'.repeat(length))];
      const planned = await planShares(pair, tokenizer, options(), 200);
      expect(outcome(planned)[1]).toMatchObject({
        counted,
        originalTokens: length,
        estimated: counted !== length,
      });
      expect(calls.filter((call) => call.startsWith('encodeWithin'))).toEqual([
        'encodeWithin start 41',
        'encodeWithin start 40',
        ...further,
      ]);
    }
  });

  it('fair: the guess at a cut is the cut frame’s length (truncated="true") and its longest marker’s, at 4 characters a token', async () => {
    // docs://page/10 with a 500-character body: a frame of 160 characters and a longest marker of
    // 147 make 307, a guess of 76 tokens, so the first count goes to 1,000 - 76 + 16. A whole
    // frame (truncated="false") is a character longer: 308 would guess 77, one token less counted.
    const { tokenizer, calls } = createCharTokenizer({ bounded: true });
    await planShares([attachment(10, 'b'.repeat(500))], tokenizer, options(), 1000);
    expect(calls.filter((call) => call.startsWith('encodeWithin'))[0]).toBe('encodeWithin start 940');
  });

  it('a second round counts as far as the content share and 16 more, going on from the first', async () => {
    // Counted to 1,440, given 1,690 of content under its cap of 2,000: on to 1,706, not to the cap.
    const { tokenizer, calls } = createCharTokenizer({ bounded: true });
    const shortCap = [attachment(1, 'a'.repeat(100)), attachment(2, 'b'.repeat(5000), { capTokens: 2000 })];
    const planned = await planShares(shortCap, tokenizer, options(), 3000);
    expect(outcome(planned)).toEqual([
      { decision: { fate: 'whole', tokens: 259 }, counted: 100, originalTokens: 100, estimated: false },
      { decision: truncated(2000), counted: 1707, originalTokens: 5000, estimated: true },
    ]);
    expect(calls.filter((call) => call.startsWith('encodeWithin'))).toEqual([
      'encodeWithin start 1440',
      'encodeWithin start 1439',
      'encodeWithin start 1706 after 1440',
    ]);
  });

  it('a body counted exactly as far as its content share is not counted again', async () => {
    // Counted to 1,439 (1,440 tokens seen); a cap of 1,750 less its cut's 310 leaves 1,440 to show.
    const { tokenizer, calls } = createCharTokenizer({ bounded: true });
    const exact = [attachment(1, 'a'.repeat(100)), attachment(2, 'b'.repeat(5000), { capTokens: 1750 })];
    const planned = await planShares(exact, tokenizer, options(), 3000);
    expect(outcome(planned)[1]).toEqual({
      decision: truncated(1750),
      counted: 1440,
      originalTokens: 5000,
      estimated: true,
    });
    expect(calls.filter((call) => call.startsWith('encodeWithin'))).toEqual([
      'encodeWithin start 1440',
      'encodeWithin start 1439',
    ]);
  });

  it('priority: counts each body as far as the whole budget or its cap', async () => {
    const { tokenizer, calls } = createCharTokenizer({ bounded: true });
    const planned = await planShares(three, tokenizer, options({ strategy: 'priority' }), 3000);
    expect(outcome(planned)).toEqual([
      fairOutcome[0],
      { decision: truncated(2741), counted: 3001, originalTokens: 5000, estimated: true },
      {
        decision: { fate: 'omitted', reason: '0 tokens were left, it needs at least 320' },
        counted: 701,
        originalTokens: 5000,
        estimated: true,
      },
    ]);
    expect(calls.filter((call) => call.startsWith('encodeWithin'))).toEqual([
      'encodeWithin start 3000',
      'encodeWithin start 3000',
      'encodeWithin start 700',
    ]);
  });

  it('stops counting further after 4 more rounds, even while a body stays short of its share', async () => {
    // A bounded encoding may stop short of its limit (tiktoken stops at a safe boundary): this
    // one gives a quarter of what is asked, so the long body is short of its share every round.
    const { tokenizer, calls } = createCharTokenizer({ bounded: true });
    const bounded = tokenizer.encodeWithin;
    if (!bounded) throw new Error('expected a bounded tokenizer');
    const stingy = {
      ...tokenizer,
      encodeWithin: (text: string, limitTokens: number, from: 'start' | 'end') => {
        // Without a last round this would count forever: fail instead of hanging.
        if (calls.length >= 20) throw new Error('still counting after 20 bounded encodings');
        return bounded(text, Math.floor(limitTokens / 4), from);
      },
    };
    const planned = await planShares([attachment(1, 'b'.repeat(5000))], stingy, options(), 3000);
    // Its cut share of 2,939 asked first (a quarter given), then its content share of 2,690 and
    // 16 more in each of 4 more rounds (this tokenizer ignores `resume`), then no more.
    expect(calls.filter((call) => call.startsWith('encodeWithin'))).toEqual([
      'encodeWithin start 734',
      'encodeWithin start 676',
      'encodeWithin start 676',
      'encodeWithin start 676',
      'encodeWithin start 676',
    ]);
    // Still short when the rounds ran out: planned on what was counted, the cut left to the
    // rendering (which counts what it shows).
    expect(outcome(planned)).toEqual([
      { decision: truncated(3000), counted: 677, originalTokens: 5000, estimated: true },
    ]);
  });

  it('a scope’s reservation is planned first', async () => {
    const { tokenizer } = createCharTokenizer({ bounded: true });
    const two = [attachment(1, 'a'.repeat(5000)), attachment(2, 'b'.repeat(5000), { scope: 'message' })];
    const shared = await planShares(two, tokenizer, options(), 3000);
    expect(shared.map(({ decision }) => decision)).toEqual([truncated(1500), truncated(1500, 309)]);
    const reserved = await planShares(two, tokenizer, options({ reserve: { message: 2000 } }), 3000);
    expect(reserved.map(({ decision }) => decision)).toEqual([truncated(500), truncated(2500, 309)]);
  });

  it('a head cut, named or by default, counts a lazily escaped body on escaped prefixes; a tail cut escapes it whole', async () => {
    const { tokenizer } = createCharTokenizer({ bounded: true });
    const lazily = (truncation?: 'head' | 'tail') => {
      // 2,000 lines of 21 characters, each escaped to 24 (`&lt;`): a clean cut after every line.
      const escaped = new EscapedText('</mcp-resource> line\n'.repeat(2000));
      const { item, body } = attachment(1, '');
      const lazy: AttachmentBody = {
        item,
        body: {
          ...body,
          escaped,
          get body() {
            return escaped.text;
          },
        },
      };
      const planned = planShares([lazy], tokenizer, options(truncation && { truncation }), 3000);
      return planned.then(([only]) => ({
        whole: escaped.prefix(0).whole,
        counted: tokenizer.decode(only?.measure.head.tokens ?? new Uint32Array(0)).slice(0, 24),
        estimated: only?.measure.estimated,
      }));
    };
    const prefixOnly = { whole: false, counted: '&lt;/mcp-resource> line\n', estimated: true };
    expect(await lazily()).toEqual(prefixOnly);
    expect(await lazily('head')).toEqual(prefixOnly);
    expect(await lazily('tail')).toEqual({ ...prefixOnly, whole: true });
  });

  describe('with the derived cache', () => {
    it('plans as without it, and a second turn counts and measures nothing again', async () => {
      const derived = new DerivedCache();
      const keyed = three.map(({ item, body }) => ({
        item: { ...item, contentKey: item.provenance.uri },
        body,
      }));
      const { tokenizer, calls } = createCharTokenizer({ bounded: true });
      expect(outcome(await planShares(keyed, tokenizer, options({ derived }), 3000))).toEqual(fairOutcome);
      calls.length = 0;
      expect(outcome(await planShares(keyed, tokenizer, options({ derived }), 3000))).toEqual(fairOutcome);
      expect(calls).toEqual([]);
    });

    it('a body without a content key is measured on its own, every turn', async () => {
      const derived = new DerivedCache();
      const { tokenizer, calls } = createCharTokenizer({ bounded: true });
      expect(outcome(await planShares(three, tokenizer, options({ derived }), 3000))).toEqual(fairOutcome);
      calls.length = 0;
      expect(outcome(await planShares(three, tokenizer, options({ derived }), 3000))).toEqual(fairOutcome);
      expect(calls.filter((call) => call.startsWith('encodeWithin'))).toHaveLength(4);
    });
  });
});

describe('modelKey', () => {
  it('names the media a model takes in, as the body differs by them', () => {
    expect(modelKey(undefined)).toBe('');
    expect(modelKey({})).toBe('');
    expect(modelKey({ images: true, audio: true, pdf: true })).toBe('iap');
    expect(modelKey({ audio: true })).toBe('a');
    expect(modelKey({ images: true, pdf: false })).toBe('i');
  });
});
