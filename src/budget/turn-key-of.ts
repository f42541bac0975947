import type { ComposableAttachment, ComposeOptions } from './composable-attachment.js';
import { modelKey } from './plan-shares.js';
import type { Tokenizer } from './tokenizer.js';

/** What a kept composition was made of: its attachments and their render order. */
export interface CompositionInputs {
  readonly items: readonly ComposableAttachment[];
  readonly renderOrder: readonly number[];
}

/**
 * Where a composition is kept: the options, and the attachments' count, first and last by number;
 * undefined when some content has no stable key. Unchanged content is prepared into the same
 * object every turn; a kept composition is used only when every attachment is that very object
 * and the render order is the same (sameInputs), so the key is a short string whatever the pins.
 * Measures are left out on purpose: a later turn may have counted further into a body, and the
 * composition kept is still exact for what it renders.
 */
export function turnKeyOf(
  items: readonly ComposableAttachment[],
  tokenizer: Tokenizer,
  options: ComposeOptions,
): string | undefined {
  for (const item of items) if (item.contentKey === undefined) return undefined;
  const first = items[0] as ComposableAttachment;
  const last = items[items.length - 1] as ComposableAttachment;
  return `${optionsKeyOf(tokenizer, options)}\u0001${items.length}\u0001${idOf(first)}\u0001${idOf(last)}`;
}

/** Whether a kept composition was made of these very attachments, in this render order. */
export function sameInputs(
  kept: CompositionInputs,
  items: readonly ComposableAttachment[],
  renderOrder: readonly number[],
): boolean {
  if (kept.items.length !== items.length || kept.renderOrder.length !== renderOrder.length) return false;
  for (let index = 0; index < items.length; index++) if (kept.items[index] !== items[index]) return false;
  for (let index = 0; index < renderOrder.length; index++)
    if (kept.renderOrder[index] !== renderOrder[index]) return false;
  return true;
}

// --- Internal helpers ---

// Each attachment object a composition was keyed by gets a number of its own, never reused:
// the same number means the same object, so the same content, frame facts and cap.
const attachmentIds = new WeakMap<ComposableAttachment, number>();
let lastAttachmentId = 0;

function idOf(item: ComposableAttachment): number {
  let id = attachmentIds.get(item);
  if (id === undefined) {
    id = ++lastAttachmentId;
    attachmentIds.set(item, id);
  }
  return id;
}

/** The options part of a composition's key: everything but the attachments and their order. */
function optionsKeyOf(tokenizer: Tokenizer, options: ComposeOptions): string {
  const truncation = options.truncation ?? 'head';
  return [
    tokenizer.name,
    options.maxTokens,
    options.minTokens,
    options.strategy,
    options.safetyMargin ?? 0,
    truncation,
    options.lineAware ?? true,
    modelKey(options.model),
    options.reserve ? JSON.stringify(options.reserve) : '',
    // Only `relevant` cuts read the message.
    truncation === 'relevant' ? (options.query ?? '') : '',
    // Counted with the renderings only by a tokenizer that is not piecewise.
    tokenizer.piecewise ? '' : (options.leading?.text ?? ''),
  ].join('\u0000');
}
