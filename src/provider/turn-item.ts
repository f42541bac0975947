import type { FetchedAttachment } from '../cache/fetch-attachment.js';
import type { ListedAttachment } from './described-by-listing.js';

/** One attachment of the turn: where it came from and what became of it. */
export interface TurnItem {
  /** With what its listing says of it (the listed priority ranks equal attachments), and its skill's name. */
  readonly attachment: ListedAttachment & { readonly skillName?: string };
  readonly fate: FetchedAttachment;
}

export type ReadyItem = TurnItem & { readonly fate: Extract<FetchedAttachment, { kind: 'ready' }> };

export function turnItem(attachment: TurnItem['attachment'], fate: FetchedAttachment): TurnItem {
  const kept = keptItems.get(fate);
  if (kept && kept.attachment === attachment) return kept;
  const item = { attachment, fate };
  if (Object.isFrozen(attachment)) keptItems.set(fate, item);
  return item;
}

// The item made for each fate of a frozen attachment: a cache hit served again is the same fate
// object every turn (fetchAttachment keeps it), and a stored pin the same frozen attachment, so a
// warm turn's item for an unchanged attachment is the last one.
const keptItems = new WeakMap<FetchedAttachment, TurnItem>();
