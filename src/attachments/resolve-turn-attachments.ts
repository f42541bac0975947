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
  readonly superseded: SupersededAttachment[];
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
export function resolveTurnAttachments(input: TurnAttachments): ResolvedAttachment[] {
  const candidates = [
    ...input.message.map((attachment) => toCandidate(attachment, 'message')),
    ...input.conversation.map((attachment) => toCandidate(attachment, 'conversation', attachment.id)),
    ...input.pipeline.map((attachment) => toCandidate(attachment, 'pipeline', attachment.id)),
  ];
  const winners = new Map<string, ResolvedAttachment>();
  const unresolved: ResolvedAttachment[] = [];
  for (const candidate of candidates) {
    if (candidate.error) {
      unresolved.push(candidate);
      continue;
    }
    const key = `${candidate.server}\u0000${candidate.uri}`;
    const winner = winners.get(key);
    if (winner) {
      winner.superseded.push({
        scope: candidate.scope,
        ...(candidate.attachmentId && { attachmentId: candidate.attachmentId }),
      });
    } else {
      winners.set(key, candidate);
    }
  }
  const ordered = [...winners.values()].map((attachment, order) => ({ attachment, order }));
  ordered.sort(
    (a, b) =>
      scopeRank[a.attachment.scope] - scopeRank[b.attachment.scope] ||
      b.attachment.priority - a.attachment.priority ||
      a.order - b.order,
  );
  return [...ordered.map(({ attachment }) => attachment), ...unresolved];
}

// --- Internal helpers ---

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
    candidate.uri = resolveTargetUri(attachment);
  } catch (error) {
    if (!ContextError.isInstance(error)) throw error;
    candidate.uri = 'uri' in attachment ? attachment.uri : attachment.template;
    candidate.error = error;
  }
  return candidate;
}
