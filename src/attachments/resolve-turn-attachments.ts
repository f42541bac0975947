import { ContextError } from '../errors.js';
import type {
  Attachment,
  AttachmentOptions,
  AttachmentTarget,
  MessageAttachment,
  ScopeKind,
  SupersededAttachment,
} from '../types.js';
import type { Writable } from '../writable.js';
import { resolveTargetUri } from './resolve-target-uri.js';
import { unreadableErrorOf } from './unreadable-pins.js';

/** One (server, uri) a turn will try to inject, after templates are expanded and duplicates merged. */
export interface ResolvedAttachment {
  readonly scope: ScopeKind;
  readonly attachmentId?: string;
  readonly server: string;
  readonly uri: string;
  readonly template?: string;
  readonly priority: number;
  readonly maxTokens?: number;
  readonly bypassCache?: boolean;
  /** Inject even when the listing marks it for the user only. */
  readonly ignoreAudience?: boolean;
  /** Load it as a skill (its URI names a SKILL.md). */
  readonly skill?: boolean;
  /** Attachments for the same (server, uri) from wider scopes, merged into this one. */
  readonly superseded: readonly SupersededAttachment[];
  /** Set when the target could not be resolved to a URI; the turn reports it, never drops it. */
  readonly error?: ContextError;
}

export interface TurnAttachments {
  readonly pipeline: readonly Attachment[];
  readonly conversation: readonly Attachment[];
  readonly message: readonly MessageAttachment[];
}

const scopeRank: Record<ScopeKind, number> = { message: 0, conversation: 1, pipeline: 2 };

/**
 * Merges the three scopes into one list. A (server, uri) attached in several scopes appears
 * once; the narrowest scope wins (message > conversation > pipeline) and the others are kept
 * in `superseded`. The result is in budget rank order: scope, then priority (highest first),
 * then the order attachments were added.
 */
export function resolveTurnAttachments(input: TurnAttachments): readonly ResolvedAttachment[] {
  const known = lastResolutionOf(input);
  if (known) return known;
  const resolved = resolveAnew(input);
  keepResolution(input, resolved);
  return resolved;
}

// --- Internal helpers ---

function resolveAnew(input: TurnAttachments): ResolvedAttachment[] {
  // Every turn resolves every pin: no intermediate arrays, keys or wrappers per candidate.
  const winners: ResolvedAttachment[] = [];
  // (server, uri) → the winner's position in `winners`.
  const byTarget = new Map<string, Map<string, number>>();
  const unresolved: ResolvedAttachment[] = [];
  const consider = (candidate: ResolvedAttachment) => {
    if (candidate.error) {
      unresolved.push(candidate);
      return;
    }
    let ofServer = byTarget.get(candidate.server);
    if (!ofServer) {
      ofServer = new Map();
      byTarget.set(candidate.server, ofServer);
    }
    const position = ofServer.get(candidate.uri);
    if (position === undefined) {
      ofServer.set(candidate.uri, winners.length);
      winners.push(candidate);
      return;
    }
    // A stored pin's resolution is shared by every turn (see resolvePin): the merged winner is a copy.
    const winner = winners[position] as ResolvedAttachment;
    const superseded = {
      scope: candidate.scope,
      ...(candidate.attachmentId && { attachmentId: candidate.attachmentId }),
    };
    winners[position] = { ...winner, superseded: [...winner.superseded, superseded] };
  };
  for (const attachment of input.message) consider(toCandidate(attachment, 'message'));
  for (const attachment of input.conversation) consider(resolvePin(attachment, 'conversation'));
  for (const attachment of input.pipeline) consider(resolvePin(attachment, 'pipeline'));
  // Array.prototype.sort is stable: equal scope and priority keep the order they were added in.
  winners.sort((a, b) => scopeRank[a.scope] - scopeRank[b.scope] || b.priority - a.priority);
  for (const attachment of unresolved) winners.push(attachment);
  return winners;
}

/** A resolution of stored pins alone, with the pin lists it was made from. */
interface Resolution {
  readonly pipeline: readonly Attachment[];
  readonly conversation: readonly Attachment[];
  readonly resolved: readonly ResolvedAttachment[];
}

// The last resolution of each set of stored pins, by its first conversation pin, else its first
// pipeline pin: the turns of many conversations of one pipeline each keep their own. Frozen pins (the memory
// store's; re-pinning makes a new object) resolve the same way every turn, merges included: a turn
// whose pins are the very objects of the last one's, without message attachments, gets the same
// list, and each step after it can tell an unchanged attachment by identity.
const resolutions = new WeakMap<Attachment, Resolution>();

function lastResolutionOf(input: TurnAttachments): readonly ResolvedAttachment[] | undefined {
  const first = input.conversation[0] ?? input.pipeline[0];
  if (!first || input.message.length > 0) return undefined;
  const kept = resolutions.get(first);
  return kept &&
    sameObjects(kept.pipeline, input.pipeline) &&
    sameObjects(kept.conversation, input.conversation)
    ? kept.resolved
    : undefined;
}

function keepResolution(input: TurnAttachments, resolved: readonly ResolvedAttachment[]): void {
  const first = input.conversation[0] ?? input.pipeline[0];
  if (!first || input.message.length > 0) return;
  if (!input.pipeline.every(Object.isFrozen) || !input.conversation.every(Object.isFrozen)) return;
  // Copies of lists a store could change later; a frozen list (the stores' own) is kept as it is.
  resolutions.set(first, {
    pipeline: Object.isFrozen(input.pipeline) ? input.pipeline : [...input.pipeline],
    conversation: Object.isFrozen(input.conversation) ? input.conversation : [...input.conversation],
    resolved,
  });
}

function sameObjects<Item>(a: readonly Item[], b: readonly Item[]): boolean {
  // The very list (a store's frozen one, unchanged since): no element to compare.
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

// A frozen pin (the memory store's are; re-pinning makes a new object) resolves the same way on
// every turn: resolved once, not once per turn. Pins a store builds anew for each list (rows) or
// could still change are resolved every time.
const resolvedPins = new WeakMap<Attachment, ResolvedAttachment>();

function resolvePin(attachment: Attachment, scope: 'conversation' | 'pipeline'): ResolvedAttachment {
  if (!Object.isFrozen(attachment)) return toCandidate(attachment, scope, attachment.id);
  const known = resolvedPins.get(attachment);
  if (known?.scope === scope) return known;
  // Frozen like the pin (its `superseded` is typed read-only: a frozen array is iterated through
  // an iterator object per loop in Node 20, a plain one is not).
  const resolved = Object.freeze(toCandidate(attachment, scope, attachment.id));
  resolvedPins.set(attachment, resolved);
  return resolved;
}

function toCandidate(
  attachment: AttachmentTarget & AttachmentOptions,
  scope: ScopeKind,
  attachmentId?: string,
): ResolvedAttachment {
  // Built by assignment, not by spreading conditional objects into `{ ...base, uri }`: every
  // turn resolves every pin, and V8 (Node 20) takes a slow path for a spread followed by more
  // properties, microseconds each.
  const candidate: Writable<ResolvedAttachment> = {
    scope,
    server: attachment.server,
    uri: '',
    priority: attachment.priority ?? 0,
    superseded: [],
  };
  if (attachmentId) candidate.attachmentId = attachmentId;
  if ('template' in attachment) candidate.template = attachment.template;
  if (attachment.maxTokens !== undefined) candidate.maxTokens = attachment.maxTokens;
  if (attachment.bypassCache !== undefined) candidate.bypassCache = attachment.bypassCache;
  if (attachment.ignoreAudience) candidate.ignoreAudience = true;
  if (attachment.skill) candidate.skill = true;
  try {
    // A pin its store could not read wholly is that pin's failure, never a guess at its target.
    const unreadable = unreadableErrorOf(attachment);
    if (unreadable) throw unreadable;
    candidate.uri = resolveTargetUri(attachment);
  } catch (error) {
    if (!ContextError.isInstance(error)) throw error;
    candidate.uri = 'uri' in attachment ? attachment.uri : attachment.template;
    candidate.error = error;
  }
  return candidate;
}
