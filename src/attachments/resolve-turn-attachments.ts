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
    // A pin's resolution is shared by every turn (see resolvePin): the merged winner is a copy.
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

/** A resolution of stored pins alone, with the pins (and their versions) it was made from. */
interface Resolution {
  readonly pipeline: readonly Attachment[];
  readonly conversation: readonly Attachment[];
  /** Each pin's version when it was resolved, pipeline pins first. */
  readonly versions: readonly string[];
  readonly resolved: readonly ResolvedAttachment[];
}

// The last resolution of each set of stored pins, by its first conversation pin, else its first
// pipeline pin: the turns of many conversations of one pipeline each keep their own. A pin's
// `version` names one state of it (a new one on every write, see Attachment.version), so a turn
// whose pins are the same pins at the same versions as the last one's, without message
// attachments, gets the same list, merges included. Pins without a version (a host's own store
// may not set one) are resolved on every turn.
const resolutions = new WeakMap<Attachment, Resolution>();

function lastResolutionOf(input: TurnAttachments): readonly ResolvedAttachment[] | undefined {
  const first = input.conversation[0] ?? input.pipeline[0];
  if (!first || input.message.length > 0) return undefined;
  const kept = resolutions.get(first);
  if (!kept) return undefined;
  const unchanged =
    samePins(kept.pipeline, input.pipeline, kept.versions, 0) &&
    samePins(kept.conversation, input.conversation, kept.versions, kept.pipeline.length);
  return unchanged ? kept.resolved : undefined;
}

function keepResolution(input: TurnAttachments, resolved: readonly ResolvedAttachment[]): void {
  const first = input.conversation[0] ?? input.pipeline[0];
  if (!first || input.message.length > 0) return;
  const versions: string[] = [];
  for (const list of [input.pipeline, input.conversation]) {
    for (const attachment of list) {
      if (attachment.version === undefined) return;
      versions.push(attachment.version);
    }
  }
  // Copies, since a store may change a list it handed out; a frozen list cannot change and is
  // kept as it is (the stores here hand out frozen lists: a pipeline's is then held once, not
  // once per conversation).
  resolutions.set(first, {
    pipeline: unchangeable(input.pipeline),
    conversation: unchangeable(input.conversation),
    versions,
    resolved,
  });
}

function unchangeable(list: readonly Attachment[]): readonly Attachment[] {
  return Object.isFrozen(list) ? list : [...list];
}

function samePins(
  kept: readonly Attachment[],
  now: readonly Attachment[],
  versions: readonly string[],
  offset: number,
): boolean {
  if (kept.length !== now.length) return false;
  for (let index = 0; index < kept.length; index++) {
    const pin = now[index] as Attachment;
    if (pin !== kept[index] || pin.version !== versions[offset + index]) return false;
  }
  return true;
}

// A pin's resolution at its version: resolved once, not once per turn (a store hands out the same
// pin object while its row is unchanged, see InternedPins). Pins without a version are resolved
// every time.
const resolvedPins = new WeakMap<
  Attachment,
  { readonly version: string; readonly resolved: ResolvedAttachment }
>();

function resolvePin(attachment: Attachment, scope: 'conversation' | 'pipeline'): ResolvedAttachment {
  const version = attachment.version;
  if (version === undefined) return toCandidate(attachment, scope, attachment.id);
  const known = resolvedPins.get(attachment);
  if (known?.version === version && known.resolved.scope === scope) return known.resolved;
  // Frozen: every turn gets this one object, so no step may change it.
  const resolved = Object.freeze(toCandidate(attachment, scope, attachment.id));
  resolvedPins.set(attachment, { version, resolved });
  return resolved;
}

// Shared by every candidate that superseded nothing: a merge builds a new list (see resolveAnew).
const noneSuperseded: readonly SupersededAttachment[] = Object.freeze([]);

function toCandidate(
  attachment: AttachmentTarget & AttachmentOptions,
  scope: ScopeKind,
  attachmentId?: string,
): ResolvedAttachment {
  // Built by assignment, not by spreading conditional objects into `{ ...base, uri }`: every
  // turn resolves every pin, and V8 (Node 20) takes a slow path for a spread followed by more
  // properties, microseconds each.
  const { server } = attachment;
  const priority = attachment.priority ?? 0;
  // A pin's id is in the literal itself: a property added after it is kept outside the object
  // (a property array, ~40 bytes a pin), and every pin of every conversation is resolved once.
  const candidate: Writable<ResolvedAttachment> = attachmentId
    ? { scope, server, uri: '', priority, superseded: noneSuperseded, attachmentId }
    : { scope, server, uri: '', priority, superseded: noneSuperseded };
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
