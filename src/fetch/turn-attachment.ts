import type { ComposedAttachment } from '../budget/compose-context.js';
import type { Access } from '../policy/authorize-read.js';
import type { ListedAttachment } from './described-by-listing.js';
import type { FetchedAttachment } from './fetch-attachment.js';

/**
 * One attachment of the turn, from step 3 on: each step adds to it. Step 2 decided `access`;
 * steps 3–4 (fetch, convert) add what its listing says of it and its `fate`; steps 5–6 (budget,
 * render) add what the budget made of a ready one, which step 7 traces.
 */
export interface TurnAttachment {
  /** With what its listing says of it (the listed priority ranks equal attachments), and its skill's name. */
  readonly attachment: ListedAttachment & { readonly skillName?: string };
  readonly access: Access;
  readonly fate: FetchedAttachment;
  /** What the budget made of it; set by the budget step, only on attachments that reached it. */
  composed: ComposedAttachment | undefined;
}

/** An attachment ready for the budget. */
export type ReadyAttachment = TurnAttachment & {
  readonly fate: Extract<FetchedAttachment, { kind: 'ready' }>;
};

export function isReady(attachment: TurnAttachment): attachment is ReadyAttachment {
  return attachment.fate.kind === 'ready';
}
