import type { TurnAttachments } from '../attachments/resolve-turn-attachments.js';
import type { CachedContent } from '../cache/content-cache.js';
import type { TurnAttachment } from '../fetch/turn-attachment.js';
import type { ProvideResult } from '../types.js';
import type { HeldTargets } from './keep-subscribed.js';

/** A turn that ran its steps: its answer, and what the answer was made from. */
export interface TurnRun {
  readonly result: ProvideResult;
  readonly inputs: TurnInputs;
}

/** What a turn's answer depended on, as the turn itself states it. */
export interface TurnInputs {
  /** The pins and message attachments step 1 listed (each stored pin with its version). */
  readonly listed: TurnAttachments;
  /** Each attachment as the turn left it: its access, what its listing said, its fate, its composition. */
  readonly attachments: readonly TurnAttachment[];
  /** The cached content of each attachment answered from the cache at once: the versions it injected. */
  readonly contents: readonly CachedContent[];
  /** The listings' generation when the turn consulted them, and the servers whose listings it consulted. */
  readonly listingGeneration: number;
  readonly listedServers: readonly string[];
  /** Sessions opened when the turn started (its server instructions came from them); none without server instructions. */
  readonly sessionsOpened?: number;
  /** What its scopes held for the pin subscriptions. */
  readonly subscribed: HeldTargets | undefined;
}
