import type { Attachment, PinInput, Scope } from '../types.js';

/**
 * Where pins live. Stores validate what they are given (see `parsePinInput`) and return
 * attachments in the order they were added, so a turn's rendering is stable.
 */
export interface AttachmentStore {
  /** Adds a pin and returns it with its id. Pinning the same target twice in one scope replaces the first. */
  pin(input: PinInput): Promise<Attachment>;
  /** Removes a pin; true when it existed. */
  unpin(id: string): Promise<boolean>;
  /** The pins of one scope, oldest first. */
  list(scope: Scope): Promise<Attachment[]>;
  /** Every pin of every scope, oldest first, at most `limit` (the inspector shows them by scope). */
  listAll?(limit: number): Promise<Attachment[]>;
  close?(): Promise<void>;
}
