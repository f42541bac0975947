import type { EscapedText } from '../render/escaped-text.js';
import { frameResourceParts } from '../render/frame-resource.js';
import type { BlockProvenance, ContextBlock, MediaPart } from '../types.js';
import type { ComposeOptions, CountedBlock } from './composable-attachment.js';
import { countJoined, type JoinedPart } from './count-joined.js';
import { frameFactsKey } from './frame-facts-key.js';
import { type BodyMeasure, measureBody } from './measure-body.js';
import type { BudgetDecision } from './plan-budget.js';
import { lazilyRead, modelKey, type PlannedAttachment, provenanceOf } from './plan-shares.js';
import type { Tokenizer } from './tokenizer.js';
import type { ChunkIndex } from './truncate/chunk-index.js';
import { truncationStrategies } from './truncate/truncation-strategies.js';
import type { ChunkMemo } from './truncate/truncation-strategy.js';
import { truncationMarker } from './truncation-marker.js';

export type ResourceBlock = ContextBlock & { kind: 'resource' };

/** What rendering an attachment needs besides the attachment: the turn's tokenizer, options and budget. */
export interface FitContext {
  readonly tokenizer: Tokenizer;
  readonly options: ComposeOptions;
  readonly maxTokens: number;
  readonly preambleTokens: number;
  /**
   * This turn's renderings by key: the fit's later passes find them here, so the derived cache
   * sees one use per turn (a second pass is not a later turn's use: it would move a first turn's
   * renderings off probation).
   */
  readonly renderedThisTurn?: Map<string, CountedBlock>;
  /**
   * This turn's chunk indexes by key (`relevant`), for the same reason: a later pass cuts the same
   * body again, and looking its index up in the derived cache again would move a first turn's
   * index off probation (hostLike: every new attachment's and first-turn note's index entered
   * main, and 300 first turns pushed the indexes of conversations in progress out).
   */
  readonly indexedThisTurn?: Map<string, ChunkIndex>;
}

/**
 * An attachment rendered under a decision, with its exact count: reused from the derived cache
 * when the same content was rendered under the same share, cut, query, model and tokenizer (a
 * warm turn: no decode, no encode, no re-render), else rendered, counted and kept.
 */
export async function renderCounted(
  attachment: PlannedAttachment,
  decision: BudgetDecision,
  context: FitContext,
): Promise<{ block: ResourceBlock | undefined; tokens: number }> {
  if (decision.fate === 'omitted') return { block: undefined, tokens: 0 };
  const memo = context.options.derived;
  const key = memo && renderingKey(attachment, decision, context);
  const known = key === undefined ? undefined : (context.renderedThisTurn?.get(key) ?? memo?.rendering(key));
  if (known) {
    if (key !== undefined) context.renderedThisTurn?.set(key, known);
    return known;
  }
  const rendered = await renderAttachment(attachment, decision, context);
  if (!rendered) return { block: undefined, tokens: 0 };
  const { block, parts } = rendered;
  const tokens = await countJoined(parts, context.tokenizer);
  if (key !== undefined) {
    const counted = { block, tokens };
    // A `relevant` cut of a message with text depends on that text: kept, only a turn with the
    // same text over the same shares would find it, and the kept composition answers that turn
    // whole. So it is kept for this turn only: kept, it was a probation entry for every body cut,
    // every turn (an A/B run of hostLike's steady turns: relevant 4 % slower at p50, and more GC).
    const readsQuery =
      decision.fate === 'truncated' &&
      (context.options.truncation ?? 'head') === 'relevant' &&
      (context.options.query ?? '') !== '';
    if (!readsQuery) memo?.keepRendering(key, counted);
    context.renderedThisTurn?.set(key, counted);
  }
  return { block, tokens };
}

// --- Internal helpers ---

/** Everything a rendering depends on; undefined when the content has no stable key. */
function renderingKey(
  { item, measure }: PlannedAttachment,
  decision: Exclude<BudgetDecision, { fate: 'omitted' }>,
  { tokenizer, options }: FitContext,
): string | undefined {
  if (item.contentKey === undefined) return undefined;
  const share = decision.fate === 'whole' ? 'whole' : `cut:${decision.contentTokens}`;
  const truncation = options.truncation ?? 'head';
  // Only `relevant` cuts read the message.
  const query = truncation === 'relevant' ? (options.query ?? '') : '';
  return [
    item.contentKey,
    tokenizer.name,
    modelKey(options.model),
    frameFactsKey(item.provenance),
    measure.originalTokens,
    measure.estimated,
    share,
    truncation,
    options.lineAware ?? true,
    query,
  ].join('\u0000');
}

/**
 * An attachment's block, with its text as parts for counting: the frame's open and close tags
 * apart from the content, and the content's exact count where it is already known (a body
 * counted whole while measuring, a head cut read off the measuring pass's tokens). Counting the
 * parts and re-counting only their joins (countJoined) equals counting the block: each body is
 * encoded once per cold turn, not once to measure and again to check the rendering.
 */
async function renderAttachment(
  attachment: PlannedAttachment,
  decision: BudgetDecision,
  { tokenizer, options, indexedThisTurn }: FitContext,
): Promise<{ block: ResourceBlock; parts: readonly JoinedPart[] } | undefined> {
  if (decision.fate === 'omitted') return undefined;
  const { item, body: assembled, measure, cost } = attachment;
  const base = provenanceOf(item, measure);
  if (decision.fate === 'whole') {
    const provenance = { ...base, truncated: false };
    const counted = measure.estimated ? undefined : measure.originalTokens;
    const framed = framedParts(provenance, assembled.body, [
      { text: assembled.body, ...(counted !== undefined && { tokens: counted }) },
    ]);
    const parts = assembled.parts.map(({ part }) => part);
    return {
      block: withParts({ kind: 'resource', text: framed.text, provenance }, parts),
      parts: framed.parts,
    };
  }
  const truncation = options.truncation ?? 'head';
  const contentTokens = Math.max(0, decision.contentTokens);
  const { text, head } = await textToCut(
    attachment,
    lazilyRead(assembled, options),
    contentTokens,
    tokenizer,
  );
  const cut = await truncationStrategies[truncation]({
    body: text,
    pinnedChars: assembled.pinnedChars,
    contentTokens,
    markerTokens: cost.markerTokens,
    briefMarkerTokens: cost.briefMarkerTokens,
    originalTokens: measure.originalTokens,
    estimated: measure.estimated,
    headEncoding: head,
    tokenizer,
    lineAware: options.lineAware ?? true,
    ...(options.query !== undefined && { query: options.query }),
    // The body's chunks, term statistics and chunk counts, kept by content across turns: only
    // `relevant` reads them, and only its whole body is escaped whole (a head cut reads a prefix:
    // comparing with `assembled.body` would escape all of a lazily escaped body).
    ...(truncation === 'relevant' &&
      options.derived &&
      item.contentKey !== undefined &&
      text === assembled.body && {
        chunks: {
          memo: indexedThisTurn ? onceThisTurn(options.derived, indexedThisTurn) : options.derived,
          key: `${item.contentKey}\u0000${modelKey(options.model)}\u0000${tokenizer.name}`,
          probation: item.provenance.scope === 'message',
        },
      }),
    marker: (range, estimated, brief) =>
      truncationMarker({
        server: item.provenance.server,
        uri: item.provenance.uri,
        originalTokens: measure.originalTokens,
        estimated: estimated || measure.estimated,
        range,
        brief,
      }),
  });
  const provenance = { ...base, truncated: true };
  // A part whose naming line was cut away goes with it: the marker accounts for both.
  const parts = assembled.parts.filter(({ line }) => cut.text.includes(line)).map(({ part }) => part);
  const framed = framedParts(provenance, cut.text, cut.parts ?? [{ text: cut.text }]);
  return {
    block: withParts({ kind: 'resource', text: framed.text, provenance }, parts),
    parts: framed.parts,
  };
}

/**
 * The text a cut reads, with the tokens counted from its start. A head cut of a lazily escaped
 * body counted only in part reads the escaped prefix its measure counted, counted on first when
 * the share reaches past it: the rest of the body is never escaped. Any other cut reads the whole
 * body. The plan's measure still names the body's size (frame and marker were costed with it).
 */
async function textToCut(
  { body, measure }: PlannedAttachment,
  lazy: EscapedText | undefined,
  contentTokens: number,
  tokenizer: Tokenizer,
): Promise<{ text: string; head: BodyMeasure['head'] }> {
  if (!lazy || !measure.estimated) return { text: body.body, head: measure.head };
  const counted =
    measure.head.tokens.length >= contentTokens
      ? measure
      : await measureBody(lazy, contentTokens, tokenizer, measure);
  // Counted on to its end, the body turned out whole: the cut reads it whole.
  if (!counted.estimated) return { text: body.body, head: counted.head };
  return { text: lazy.prefix(counted.head.end).text, head: counted.head };
}

/**
 * The framed block's text and its parts for counting: the frame's open tag, the content's parts
 * and the close tag, as the frame is made of them (frameResourceParts), so nothing is searched
 * or compared (reading the framed text flattened it: a second copy of every rendering). Content
 * the frame escaped again (escaped bodies never are), or parts that do not add up to it, are
 * counted as the content stands.
 */
function framedParts(
  provenance: BlockProvenance,
  content: string,
  contentParts: readonly JoinedPart[],
): { readonly text: string; readonly parts: readonly JoinedPart[] } {
  const frame = frameResourceParts(provenance, content);
  const exact =
    frame.body === content &&
    (contentParts.length === 1
      ? (contentParts[0] as JoinedPart).text === content
      : contentParts.reduce((sum, part) => sum + part.text.length, 0) === content.length);
  return {
    text: `${frame.open}${frame.body}${frame.close}`,
    parts: [{ text: frame.open }, ...(exact ? contentParts : [{ text: frame.body }]), { text: frame.close }],
  };
}

/** `memo` looked up once a turn: an index found (or built) this turn is taken from `thisTurn` after. */
function onceThisTurn(memo: ChunkMemo, thisTurn: Map<string, ChunkIndex>): ChunkMemo {
  return {
    chunkIndex: (key, build, probation) => {
      let index = thisTurn.get(key);
      if (!index) {
        index = memo.chunkIndex(key, build, probation);
        thisTurn.set(key, index);
      }
      return index;
    },
  };
}

function withParts(block: ResourceBlock, parts: readonly MediaPart[]): ResourceBlock {
  return parts.length === 0 ? block : { ...block, parts };
}
