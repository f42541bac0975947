import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';

/** A resolved attachment with what its server's listing says of it. */
export type ListedAttachment = ResolvedAttachment & {
  readonly lastModified?: string;
  readonly annotationPriority?: number;
};

// The description made for each frozen attachment, while it lives (a stored pin resolves to the
// same frozen object every turn); one built for a turn is not kept.
const listingDescriptions = new WeakMap<ResolvedAttachment, ListedAttachment>();

/**
 * The attachment with what its listing adds (lastModified for the frame, a priority for the
 * rank): the same object while the listing says the same, so that a warm turn of an annotated
 * resource is told by identity as one without annotations is.
 */
export function describedByListing(
  attachment: ResolvedAttachment,
  lastModified: string | undefined,
  annotationPriority: number | undefined,
): ListedAttachment {
  if (lastModified === undefined && annotationPriority === undefined) return attachment;
  const frozen = Object.isFrozen(attachment);
  const kept = frozen ? listingDescriptions.get(attachment) : undefined;
  if (kept && kept.lastModified === lastModified && kept.annotationPriority === annotationPriority)
    return kept;
  const described = {
    ...attachment,
    ...(lastModified !== undefined && { lastModified }),
    ...(annotationPriority !== undefined && { annotationPriority }),
  };
  if (!frozen) return described;
  // Frozen like the attachment it describes, and kept for the turns after.
  Object.freeze(described);
  listingDescriptions.set(attachment, described);
  return described;
}
