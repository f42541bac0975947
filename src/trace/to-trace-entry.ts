import type { TraceEntry, TraceStatus } from '../types.js';
import type { AttachmentFate, ComposedFacts, TracedAttachment } from './attachment-fate.js';

type Writable<T> = { -readonly [Key in keyof T]: T[Key] };

/** The trace's account of one attachment: where it came from, what it cost, what became of it. */
export function toTraceEntry(
  attachment: TracedAttachment,
  fate: AttachmentFate,
  composed: ComposedFacts | undefined,
  change: TraceEntry['change'],
): TraceEntry {
  // Built by assignment, not by spreading conditional objects: every turn builds one entry per
  // attachment, and spreads of varying shapes were a fifth of a warm turn's time.
  const entry = { scope: attachment.scope } as Writable<TraceEntry>;
  if (attachment.attachmentId !== undefined) entry.attachmentId = attachment.attachmentId;
  entry.server = attachment.server;
  entry.uri = attachment.uri;
  if (attachment.template !== undefined) entry.template = attachment.template;
  if (attachment.lastModified !== undefined) entry.lastModified = attachment.lastModified;
  if (attachment.skillName !== undefined) entry.skillName = attachment.skillName;
  if (fate.kind !== 'ready') {
    // Nothing was converted: the entry says why, as a reason (skipped) or a typed error (failed).
    entry.status = fate.status;
    entry.tokens = 0;
    entry.originalTokens = 0;
    entry.bytes = 0;
    entry.cache = fate.cache;
    entry.durationMs = fate.durationMs;
    if (fate.kind === 'skipped') entry.reason = fate.reason;
    else entry.error = { code: fate.error.code, message: fate.error.message };
    entry.superseded = attachment.superseded;
    entry.omittedContents = [];
    return entry;
  }
  const { converted } = fate;
  const decision = composed?.decision;
  const status = statusOf(fate, composed);
  const omittedContents = composed?.omittedContents ?? converted.omittedContents;
  entry.mimeType = converted.mimeType;
  entry.sha256 = converted.sha256;
  entry.status = status;
  // Nothing injectable: the items' own reasons say why (e.g. an MCP Apps UI resource).
  if (status === 'unsupported' && omittedContents.length > 0) {
    entry.reason = [...new Set(omittedContents.map((item) => item.reason))].join('; ');
  }
  entry.tokens = composed?.tokens ?? 0;
  entry.originalTokens = composed?.originalTokens ?? 0;
  if (composed?.originalTokensEstimated) entry.originalTokensEstimated = true;
  entry.bytes = converted.bytes;
  entry.cache = fate.cache;
  if (fate.sharedCache) entry.sharedCache = fate.sharedCache;
  entry.durationMs = fate.durationMs;
  if (decision?.fate === 'omitted') entry.reason = decision.reason;
  if (decision?.fate === 'truncated') {
    entry.reason = `cut to ${decision.contentTokens} of ${composed?.originalTokensEstimated ? '~' : ''}${composed?.originalTokens ?? 0} content tokens to fit the budget`;
  }
  if (fate.staleError) entry.error = { code: fate.staleError.code, message: fate.staleError.message };
  entry.superseded = attachment.superseded;
  entry.omittedContents = omittedContents;
  if (converted.notes.length > 0) entry.notes = converted.notes;
  if (change !== undefined) entry.change = change;
  return entry;
}

// --- Internal helpers ---

function statusOf(
  fate: Extract<AttachmentFate, { kind: 'ready' }>,
  composed: ComposedFacts | undefined,
): TraceStatus {
  const fateOfBudget = composed?.decision.fate;
  if (fateOfBudget === 'omitted' || fateOfBudget === undefined) return 'omitted-budget';
  // Nothing the model can take (binary, or media this model does not accept): only placeholders went in.
  if (composed?.injectable === false || !fate.converted.textual) return 'unsupported';
  // Injected from a cached copy because the fresh read failed; the trace keeps that error.
  if (fate.cache === 'stale') return 'stale';
  return fateOfBudget === 'truncated' ? 'truncated' : 'injected';
}
