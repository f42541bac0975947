import { describe, expect, it } from 'vitest';
import {
  type ComposableAttachment,
  type ComposedContext,
  type ComposeOptions,
  composeContext,
} from '../../src/budget/compose-context.js';
import type { ConvertedSection } from '../../src/render/converted-section.js';
import { contextPreamble } from '../../src/render/frame-resource.js';
import { createCharTokenizer } from './char-tokenizer.js';

// One token per character, so every count below can be read off the text. The fit loop's steps
// are each pinned by a composition that needs them under the Tokenizer contract (no token spans
// a join): a cut whose rendering comes out over its share (head-tail and relevant cuts, an
// underestimated body), and a cut landing short of its share that the grow step fills.

const length = (text: string) => Array.from(text).length;
const preamble = length(contextPreamble);

const lines = (count: number, label: string) =>
  Array.from({ length: count }, (_, index) => `${label} ${index + 1}: the service validates the cart`).join(
    '\n',
  );
const alpha = lines(60, 'alpha');
const beta = lines(60, 'beta');
const gamma = lines(3, 'gamma');

function textItem(index: number, body: string, capTokens?: number): ComposableAttachment {
  return item(
    index,
    [{ kind: 'text', uri: `docs://page/${index}`, mimeType: 'text/plain', bytes: body.length, text: body }],
    capTokens,
  );
}

function item(index: number, sections: ConvertedSection[], capTokens?: number): ComposableAttachment {
  return {
    provenance: {
      scope: 'pipeline',
      server: 'docs',
      uri: `docs://page/${index}`,
      mimeType: 'text/plain',
      sha256: String(index).repeat(64),
    },
    sections,
    ...(capTokens !== undefined && { capTokens }),
  };
}

const base = { maxTokens: 2000, minTokens: 10, strategy: 'fair' } as const;

/**
 * Composes with a fresh one-token-per-character tokenizer and checks what holds for every
 * composition: the count is the rendering's own (preamble and blocks, character by character)
 * and each attachment's tokens are its block's.
 */
async function compose(
  items: readonly ComposableAttachment[],
  options: Partial<ComposeOptions> = {},
): Promise<ComposedContext & { calls: string[] }> {
  const { tokenizer, calls } = createCharTokenizer({ bounded: true, prefix: true });
  const renderOrder = items.map((_, index) => index);
  const composed = await composeContext(items, tokenizer, { ...base, renderOrder, ...options });
  expect(composed.usedTokens).toBe(composed.blocks.reduce((sum, block) => sum + length(block.text), 0));
  const order = options.renderOrder ?? renderOrder;
  const shown = order.filter((index) => composed.attachments[index]?.decision.fate !== 'omitted');
  for (const [position, index] of shown.entries()) {
    expect(composed.attachments[index]?.tokens).toBe(length(composed.blocks[position + 1]?.text ?? ''));
  }
  return { ...composed, calls };
}

/** What the fit loop settled on: each attachment's decision and its block's tokens. */
const settled = ({ attachments }: ComposedContext) =>
  attachments.map(({ decision, tokens }) => ({ decision, tokens }));

describe('composeContext, exactly (one token per character)', () => {
  it('a rendering over the turn budget: the largest cut gives up exactly the excess, the first of equals', async () => {
    // The plan gives both head-tail cuts 904 tokens; rendered, they come to 2002 of 2000.
    const composed = await compose([textItem(0, alpha), textItem(1, beta)], { truncation: 'head-tail' });
    expect(composed.usedTokens).toBe(2000);
    expect(settled(composed)).toEqual([
      { decision: { fate: 'truncated', tokens: 902, contentTokens: 592 }, tokens: 903 },
      { decision: { fate: 'truncated', tokens: 904, contentTokens: 594 }, tokens: 905 },
    ]);
    expect(composed.blocks.map((block) => length(block.text))).toEqual([preamble, 903, 905]);

    // The same pair the other way round: the shrink still goes to the first of two equal shares.
    const swapped = await compose([textItem(1, beta), textItem(0, alpha)], { truncation: 'head-tail' });
    expect(swapped.usedTokens).toBe(2000);
    expect(settled(swapped)).toEqual([
      { decision: { fate: 'truncated', tokens: 902, contentTokens: 592 }, tokens: 903 },
      { decision: { fate: 'truncated', tokens: 904, contentTokens: 594 }, tokens: 905 },
    ]);
  });

  it('the turn shrink goes to the largest share wherever it is, past a whole attachment at exactly its cap', async () => {
    // gamma renders whole in exactly its cap (278): at its cap is within it, so it stays whole.
    const composed = await compose([textItem(2, gamma, 278), textItem(0, alpha), textItem(1, beta)], {
      truncation: 'head-tail',
    });
    expect(composed.usedTokens).toBe(2000);
    expect(settled(composed)).toEqual([
      { decision: { fate: 'whole', tokens: 278 }, tokens: 278 },
      { decision: { fate: 'truncated', tokens: 763, contentTokens: 453 }, tokens: 764 },
      { decision: { fate: 'truncated', tokens: 765, contentTokens: 455 }, tokens: 766 },
    ]);
  });

  it('an attachment over its own cap gives up its own excess first; the turn then shrinks its largest cut', async () => {
    const composed = await compose([textItem(0, alpha, 700), textItem(1, beta)], {
      truncation: 'head-tail',
      lineAware: false,
    });
    // Round 1: alpha renders 701 of its cap 700 and gives up 1; round 2: alpha sits at its cap,
    // the turn is 1 over, and beta (the larger) gives it up.
    expect(composed.usedTokens).toBe(2000);
    expect(settled(composed)).toEqual([
      { decision: { fate: 'truncated', tokens: 699, contentTokens: 389 }, tokens: 700 },
      { decision: { fate: 'truncated', tokens: 1107, contentTokens: 797 }, tokens: 1108 },
    ]);
  });

  it('over their caps and over the turn in one rendering: each gives up its own excess, and the turn fits', async () => {
    // Both head-tail cuts render 905 against caps of 904, the turn 2002 of 2000: each gives up
    // its own 1, which brings the turn to 2000.
    const composed = await compose([textItem(0, alpha, 904), textItem(1, beta, 904)], {
      truncation: 'head-tail',
    });
    expect(composed.usedTokens).toBe(2000);
    expect(settled(composed)).toEqual([
      { decision: { fate: 'truncated', tokens: 903, contentTokens: 593 }, tokens: 904 },
      { decision: { fate: 'truncated', tokens: 903, contentTokens: 593 }, tokens: 904 },
    ]);
  });

  it('over its cap while the turn is within budget: only that attachment shrinks', async () => {
    const composed = await compose([textItem(0, alpha, 700), textItem(1, beta)], { truncation: 'head-tail' });
    // beta's line-aware cut lands 7 short; handing it those 7 renders the same cut, so the
    // composition keeps what it had.
    expect(composed.usedTokens).toBe(1993);
    expect(settled(composed)).toEqual([
      { decision: { fate: 'truncated', tokens: 699, contentTokens: 389 }, tokens: 700 },
      { decision: { fate: 'truncated', tokens: 1108, contentTokens: 798 }, tokens: 1101 },
    ]);
  });

  it('a shrink that leaves exactly minTokens of content keeps the cut; one token less omits it, and the rest grows into the room', async () => {
    const at = await compose([textItem(0, alpha, 701), textItem(1, beta)], {
      truncation: 'head-tail',
      lineAware: false,
      minTokens: 390,
    });
    expect(at.usedTokens).toBe(2000);
    expect(settled(at)).toEqual([
      { decision: { fate: 'truncated', tokens: 700, contentTokens: 390 }, tokens: 701 },
      { decision: { fate: 'truncated', tokens: 1106, contentTokens: 796 }, tokens: 1107 },
    ]);

    const below = await compose([textItem(0, alpha, 701), textItem(1, beta)], {
      truncation: 'head-tail',
      lineAware: false,
      minTokens: 391,
    });
    expect(below.usedTokens).toBe(2000);
    expect(settled(below)).toEqual([
      {
        decision: {
          fate: 'omitted',
          reason: 'the exact count of the rendered context left it too little room',
        },
        tokens: 0,
      },
      { decision: { fate: 'truncated', tokens: 1808, contentTokens: 1498 }, tokens: 1808 },
    ]);
    expect(below.blocks.map((block) => length(block.text))).toEqual([preamble, 1808]);
  });

  it('fair: an attachment ranked below one whose smallest cut cannot fit still goes in when its own fits', async () => {
    // gamma renders whole in 278; alpha's smallest cut (frame, marker, 10 of content) is 320.
    const composed = await compose([textItem(0, alpha), textItem(3, gamma)], { maxTokens: preamble + 278 });
    expect(composed.usedTokens).toBe(preamble + 278);
    expect(settled(composed)).toEqual([
      {
        decision: {
          fate: 'omitted',
          reason: '278 tokens were left after the minimums of those ranked above it, it needs at least 320',
        },
        tokens: 0,
      },
      { decision: { fate: 'whole', tokens: 278 }, tokens: 278 },
    ]);
    expect(composed.blocks.map((block) => block.text)).toEqual([
      contextPreamble,
      expect.stringContaining('gamma 3: the service validates the cart'),
    ]);
  });

  it('a body whose estimate was low renders over the budget whole, and is cut by the excess', async () => {
    // Counted to 1000 emoji and on into the ASCII, the body looks shorter than it is (an emoji is
    // one token in two UTF-16 units): planned whole, it renders over, and is cut instead.
    const body = '🎉'.repeat(1000) + 'x'.repeat(3000);
    const composed = await compose([textItem(0, body), textItem(1, lines(2, 'beta'))], { maxTokens: 4000 });
    expect(composed.attachments[0]?.originalTokensEstimated).toBe(true);
    expect(composed.usedTokens).toBe(3827);
    expect(settled(composed)).toEqual([
      { decision: { fate: 'truncated', tokens: 3402, contentTokens: 3092 }, tokens: 3400 },
      { decision: { fate: 'whole', tokens: 235 }, tokens: 235 },
    ]);
  });

  it('a low estimate over its cap and over the turn at once: the shrink to its cap alone, the turn then within budget', async () => {
    const body = '🎉'.repeat(1000) + 'x'.repeat(3000);
    const composed = await compose(
      [textItem(0, alpha, 400), textItem(1, body, 4000), textItem(2, lines(120, 'beta'))],
      { maxTokens: 8000 },
    );
    // Planned whole by its estimate, the emoji body renders over its cap and over the turn.
    // Cut to 3588, it renders 3586, and the turn 7793: the largest is not cut again. The 207 left
    // are handed out from what each cut rendered: the emoji body's 163 up to its estimated whole
    // (3749), beta's 44, and the turn comes to 7994.
    expect(composed.usedTokens).toBe(7994);
    expect(settled(composed)).toEqual([
      { decision: { fate: 'truncated', tokens: 400, contentTokens: 90 }, tokens: 395 },
      { decision: { fate: 'truncated', tokens: 3749, contentTokens: 3439 }, tokens: 3747 },
      { decision: { fate: 'truncated', tokens: 3664, contentTokens: 3354 }, tokens: 3660 },
    ]);
  });

  it('a cut landing short of its share: the first cut takes the slack, grown from what it rendered', async () => {
    const composed = await compose([textItem(0, alpha), textItem(1, beta)]);
    // Planned 904 each with the longest marker paid for, the cuts render 1991 in all (901 and
    // 898): the 9 left over go to the first cut, 901 + 9 = 910. Its marker is again 3 short of
    // the longest, so the turn comes to 1997; a share grown from its own (913) could fill it to
    // the token here, but a cut that left content unused (a line end, a chunk) would take that
    // twice and come out over.
    expect(composed.usedTokens).toBe(1997);
    expect(settled(composed)).toEqual([
      { decision: { fate: 'truncated', tokens: 910, contentTokens: 600 }, tokens: 907 },
      { decision: { fate: 'truncated', tokens: 904, contentTokens: 594 }, tokens: 898 },
    ]);
  });

  it('grow skips omitted and whole attachments and those at their cap, and hands the slack to the first cut with room', async () => {
    const composed = await compose(
      [textItem(2, lines(10, 'gamma'), 100), textItem(3, gamma), textItem(0, alpha, 700), textItem(1, beta)],
      { maxTokens: 2300 },
    );
    // gamma 10 has a cap below its smallest cut, gamma 3 fits whole, alpha's share is its cap (it
    // renders 697 of 700): the 6 tokens the cuts left unused all go to beta.
    expect(composed.usedTokens).toBe(2297);
    expect(settled(composed)).toEqual([
      {
        decision: {
          fate: 'omitted',
          reason: 'its maxTokens (100) is below the smallest useful cut with frame and marker',
        },
        tokens: 0,
      },
      { decision: { fate: 'whole', tokens: 278 }, tokens: 278 },
      { decision: { fate: 'truncated', tokens: 700, contentTokens: 390 }, tokens: 697 },
      { decision: { fate: 'truncated', tokens: 1133, contentTokens: 823 }, tokens: 1130 },
    ]);
  });

  it('a grow round that no longer fits is not kept', async () => {
    // A tokenizer that counts a text whole, one token per character and one more per 20 of them:
    // a rendering counts more than its parts do apart, so a cut renders over its share, and a
    // round grown from what it rendered can come out over the budget.
    const { tokenizer: chars } = createCharTokenizer({ bounded: true, prefix: true });
    const whole = (text: string) => length(text) + Math.floor(length(text) / 20);
    const tokenizer = { ...chars, piecewise: false, count: async (text: string) => whole(text) };
    const composed = await composeContext([textItem(0, alpha), textItem(1, beta)], tokenizer, {
      ...base,
      renderOrder: [0, 1],
    });
    // Fitted at 1999: alpha renders 872 on a share of 858. The round hands it the 1 left (873),
    // and the rendering comes to 2024, over: the fitted rendering stays.
    expect(composed.usedTokens).toBe(1999);
    expect(composed.usedTokens).toBe(whole(composed.blocks.map((block) => block.text).join('')));
    expect(settled(composed)).toEqual([
      { decision: { fate: 'truncated', tokens: 858, contentTokens: 533 }, tokens: 872 },
      { decision: { fate: 'truncated', tokens: 899, contentTokens: 574 }, tokens: 925 },
    ]);
  });

  it('a grow round that renders no more than the last is not kept', async () => {
    const composed = await compose([textItem(0, alpha, 700), textItem(1, beta)]);
    // alpha's share is its cap. The round hands beta the 13 left (1098 + 13 = 1111): its cut ends
    // at the same line end, 1098 again, and the round is not kept (beta's share stays 1108).
    expect(composed.usedTokens).toBe(1987);
    expect(settled(composed)).toEqual([
      { decision: { fate: 'truncated', tokens: 700, contentTokens: 390 }, tokens: 697 },
      { decision: { fate: 'truncated', tokens: 1108, contentTokens: 798 }, tokens: 1098 },
    ]);
  });

  it('relevant cuts mark their proportional offsets with "~", even in a body counted whole', async () => {
    const shown = lines(20, 'beta').split('\n');
    const composed = await compose([textItem(0, lines(20, 'alpha')), textItem(1, lines(20, 'beta'))], {
      truncation: 'relevant',
      query: 'beta 7 cart',
    });
    // Two chunks (lines 1–17, 18–20): "beta" and "cart" are in both, the shorter scores higher;
    // the longer (671 tokens here, one per character) does not fit the share of 539, so the cut
    // shows lines 18–20 and leaves the rest of its share unused (chunks of ~640 characters).
    expect(composed.usedTokens).toBe(1582);
    expect(settled(composed)).toEqual([
      { decision: { fate: 'whole', tokens: 969 }, tokens: 969 },
      { decision: { fate: 'truncated', tokens: 839, contentTokens: 539 }, tokens: 421 },
    ]);
    expect(composed.attachments[1]?.originalTokensEstimated).toBe(false);
    expect(composed.blocks[2]?.text).toBe(
      '<mcp-resource server="docs" uri="docs://page/1" mime="text/plain" scope="pipeline" sha256="1111111111111111" tokens="790" truncated="true">\n' +
        '\n[truncated: ~671 of ~790 tokens omitted (tokens ~0-~671); read more with read_mcp_resource {"server":"docs","uri":"docs://page/1","offset":0}]\n' +
        `${shown.slice(17).join('\n')}` +
        '\n</mcp-resource>\n\n',
    );
  });

  it('whole attachments: each body counted once while measuring, its count reused for the block', async () => {
    const composed = await compose([textItem(0, lines(3, 'alpha')), textItem(1, lines(2, 'beta'))]);
    expect(composed.usedTokens).toBe(705);
    expect(settled(composed)).toEqual([
      { decision: { fate: 'whole', tokens: 278 }, tokens: 278 },
      { decision: { fate: 'whole', tokens: 235 }, tokens: 235 },
    ]);
    // The preamble; both measured whole (each within its cut share: an equal 1,000 less a guess
    // at its frame and marker, 76 or 75 by its length, plus 16); each frame whole and cut, each
    // longest marker and longest brief marker; then
    // each block: the body's known count reused, only its end and the frame around counted (the
    // open tag ends in a newline before a letter: a safe join, so the body's start is not counted again).
    expect(composed.calls).toEqual([
      'count 192',
      'encodeWithin start 844',
      'encodeWithin start 845',
      'count 159',
      'count 158',
      'count 142',
      'count 51',
      'count 158',
      'count 157',
      'count 138',
      'count 49',
      'count 5',
      'count 141',
      'count 23',
      'count 5',
      'count 140',
      'count 23',
    ]);
  });

  it('media parts go with the block: all of them whole, only those whose line a cut kept', async () => {
    const image = (name: string): ConvertedSection => ({
      kind: 'media',
      uri: `x://${name}.png`,
      mimeType: 'image/png',
      mediaKind: 'image',
      bytes: 4,
      data: 'iVBORw==',
    });
    const part = (name: string) => ({
      kind: 'image',
      uri: `x://${name}.png`,
      mimeType: 'image/png',
      data: 'iVBORw==',
      bytes: 4,
    });
    const text: ConvertedSection = {
      kind: 'text',
      uri: 'docs://page/0',
      mimeType: 'text/plain',
      bytes: alpha.length,
      text: alpha,
    };
    const sections = [image('first'), text, image('last')];
    const model = { images: true };
    const partsOf = (composed: ComposedContext) => {
      const block = composed.blocks[1];
      return block?.kind === 'resource' ? block.parts : undefined;
    };

    const whole = await compose([item(0, sections)], { maxTokens: 4000, model });
    expect(settled(whole)).toEqual([{ decision: { fate: 'whole', tokens: 2867 }, tokens: 2867 }]);
    expect(partsOf(whole)).toEqual([part('first'), part('last')]);
    expect(whole.calls).toEqual([
      'count 192',
      'encodeWithin start 3747',
      'count 160',
      'count 159',
      'count 146',
      'count 53',
      'count 6',
      'count 142',
      'count 24',
    ]);

    const head = await compose([item(0, sections)], { maxTokens: 1500, model });
    expect(settled(head)).toEqual([
      { decision: { fate: 'truncated', tokens: 1308, contentTokens: 998 }, tokens: 1305 },
    ]);
    expect(partsOf(head)).toEqual([part('first')]);

    const tail = await compose([item(0, sections)], { maxTokens: 1500, model, truncation: 'tail' });
    expect(partsOf(tail)).toEqual([part('last')]);
  });
});
