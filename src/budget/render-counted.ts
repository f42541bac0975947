import { frameResource } from '../render/frame-resource.js';
import type { BlockProvenance, ContextBlock, MediaPart } from '../types.js';
import type { ComposeOptions } from './composable-attachment.js';
import { countJoined, type JoinedPart } from './count-joined.js';
import type { BudgetDecision } from './plan-budget.js';
import { modelKey, type PlannedAttachment, provenanceOf } from './plan-shares.js';
import type { Tokenizer } from './tokenizer.js';
import { truncationStrategies } from './truncate/truncation-strategies.js';
import { truncationMarker } from './truncation-marker.js';

export type ResourceBlock = ContextBlock & { kind: 'resource' };

/** What rendering an attachment needs besides the attachment: the turn's tokenizer, options and budget. */
export interface FitContext {
  readonly tokenizer: Tokenizer;
  readonly options: ComposeOptions;
  readonly maxTokens: number;
  readonly preambleTokens: number;
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
  const known = key === undefined ? undefined : memo?.rendering(key);
  if (known) return known;
  const rendered = await renderAttachment(attachment, decision, context);
  if (!rendered) return { block: undefined, tokens: 0 };
  const { block, parts } = rendered;
  const tokens = await countJoined(parts, context.tokenizer);
  if (key !== undefined) memo?.keepRendering(key, { block, tokens });
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
  const { scope, server, uri } = item.provenance;
  const share = decision.fate === 'whole' ? 'whole' : `cut:${decision.contentTokens}`;
  const truncation = options.truncation ?? 'head';
  // Only `relevant` cuts read the message.
  const query = truncation === 'relevant' ? (options.query ?? '') : '';
  return [
    item.contentKey,
    tokenizer.name,
    modelKey(options.model),
    scope,
    server,
    uri,
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
  { tokenizer, options }: FitContext,
): Promise<{ block: ResourceBlock; parts: readonly JoinedPart[] } | undefined> {
  if (decision.fate === 'omitted') return undefined;
  const { item, body: assembled, measure, cost } = attachment;
  const base = provenanceOf(item, measure);
  if (decision.fate === 'whole') {
    const provenance = { ...base, truncated: false };
    const parts = assembled.parts.map(({ part }) => part);
    const block = withParts(
      { kind: 'resource', text: frameResource(provenance, assembled.body), provenance },
      parts,
    );
    const counted = measure.estimated ? undefined : measure.originalTokens;
    return {
      block,
      parts: framedParts(block.text, provenance, [
        { text: assembled.body, ...(counted !== undefined && { tokens: counted }) },
      ]),
    };
  }
  const strategy = truncationStrategies[options.truncation ?? 'head'];
  const cut = await strategy({
    body: assembled.body,
    pinnedChars: assembled.pinnedChars,
    contentTokens: Math.max(0, decision.contentTokens),
    markerTokens: cost.markerTokens,
    originalTokens: measure.originalTokens,
    estimated: measure.estimated,
    headEncoding: measure.head,
    tokenizer,
    lineAware: options.lineAware ?? true,
    ...(options.query !== undefined && { query: options.query }),
    marker: (range, estimated) =>
      truncationMarker({
        server: item.provenance.server,
        uri: item.provenance.uri,
        originalTokens: measure.originalTokens,
        estimated: estimated || measure.estimated,
        range,
      }),
  });
  const provenance = { ...base, truncated: true };
  // A part whose naming line was cut away goes with it: the marker accounts for both.
  const parts = assembled.parts.filter(({ line }) => cut.text.includes(line)).map(({ part }) => part);
  const block = withParts({ kind: 'resource', text: frameResource(provenance, cut.text), provenance }, parts);
  return { block, parts: framedParts(block.text, provenance, cut.parts ?? [{ text: cut.text }]) };
}

/**
 * The frame's open tag, the content parts and the close tag, as `text` is made of them; the
 * whole text as one part should the frame ever not be open tag + content + close tag.
 */
function framedParts(
  text: string,
  provenance: BlockProvenance,
  content: readonly JoinedPart[],
): readonly JoinedPart[] {
  const empty = frameResource(provenance, '');
  const open = empty.slice(0, empty.length - closeTag.length);
  const parts = [{ text: open }, ...content, { text: closeTag }];
  const length = parts.reduce((sum, part) => sum + part.text.length, 0);
  const exact =
    empty.endsWith(closeTag) &&
    length === text.length &&
    text.startsWith(open) &&
    text.endsWith(closeTag) &&
    content.every((part, index) => text.startsWith(part.text, offsetOf(parts, index + 1)));
  return exact ? parts : [{ text }];
}

function offsetOf(parts: readonly JoinedPart[], index: number): number {
  let offset = 0;
  for (let part = 0; part < index; part++) offset += parts[part]?.text.length ?? 0;
  return offset;
}

// frameElement closes every frame so (see frame-element.ts).
const closeTag = '\n</mcp-resource>\n\n';

function withParts(block: ResourceBlock, parts: readonly MediaPart[]): ResourceBlock {
  return parts.length === 0 ? block : { ...block, parts };
}
