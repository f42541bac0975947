import type { Attachment, PinInput, Scope } from '../types.js';

/**
 * Where pins live. Stores validate what they are given (see `parsePinInput`) and return
 * attachments in the order they were added, so a turn's rendering is stable.
 */
export interface AttachmentStore {
  /**
   * Adds a pin and returns it with its id. One pin per target: pinning the same target again in
   * the same scope (same server and the same URI, given directly or as a template with arguments)
   * updates that pin in place: it keeps its id, `addedAt` and place in the order, and takes the
   * new options (`maxTokens`, `priority` …). A `maxTokens` below the smallest useful cut (frame,
   * truncation marker and the budget's `minTokens`) is refused with INVALID_ATTACHMENT, its
   * `limit` the minimum.
   */
  pin(input: PinInput): Promise<Attachment>;
  /** Removes a pin; true when it existed. */
  unpin(id: string): Promise<boolean>;
  /**
   * The pins of one scope, oldest first. Read-only to the caller: a store may hand out its own
   * (frozen) records and list rather than copies, so nothing a caller does reaches the store.
   */
  list(scope: Scope): Promise<readonly Attachment[]>;
  /** Every pin of every scope, oldest first, at most `limit` (the inspector shows them by scope). */
  listAll?(limit: number): Promise<Attachment[]>;
  close?(): Promise<void>;
}
