import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';

/** A resolved attachment with what its server's listing says of it. */
export type ListedAttachment = ResolvedAttachment & {
  readonly lastModified?: string;
  readonly annotationPriority?: number;
};

/**
 * The attachment with what its listing adds (lastModified for the frame, a priority for the
 * rank); the attachment itself when the listing adds nothing.
 */
export function describedByListing(
  attachment: ResolvedAttachment,
  lastModified: string | undefined,
  annotationPriority: number | undefined,
): ListedAttachment {
  if (lastModified === undefined && annotationPriority === undefined) return attachment;
  return {
    ...attachment,
    ...(lastModified !== undefined && { lastModified }),
    ...(annotationPriority !== undefined && { annotationPriority }),
  };
}
