import type { TraceEntry, TraceStatus } from '../types.js';
import type { Writable } from '../writable.js';
import type { AttachmentFate, ComposedFacts, TracedAttachment } from './attachment-fate.js';

/** The trace's account of one attachment: where it came from, what it cost, what became of it. */
export function toTraceEntry(
  attachment: TracedAttachment,
  fate: AttachmentFate,
  composed: ComposedFacts | undefined,
  change: TraceEntry['change'],
): TraceEntry {
  // Every turn builds one entry per attachment: the fields every entry has go in one literal
  // (one allocation of a fixed shape), the optional ones after. Spreads of conditional objects
  // were a fifth of a warm turn's time; growing an object field by field, a seventh of its bytes.
  if (fate.kind !== 'ready') {
    // Nothing was converted: the entry says why, as a reason (skipped) or a typed error (failed).
    const entry: Writable<TraceEntry> = {
      scope: attachment.scope,
      server: attachment.server,
      uri: attachment.uri,
      status: fate.status,
      tokens: 0,
      originalTokens: 0,
      bytes: 0,
      cache: fate.cache,
      durationMs: fate.durationMs,
      superseded: attachment.superseded,
      omittedContents: [],
    };
    addProvenance(entry, attachment);
    if (fate.kind === 'skipped') entry.reason = fate.reason;
    else entry.error = { code: fate.error.code, message: fate.error.message };
    return Object.freeze(entry);
  }
  return readyEntry(attachment, fate, composed, change);
}

// --- Internal helpers ---

function readyEntry(
  attachment: TracedAttachment,
  fate: Extract<AttachmentFate, { kind: 'ready' }>,
  composed: ComposedFacts | undefined,
  change: TraceEntry['change'],
): TraceEntry {
  const { converted } = fate;
  const failure = composed?.failure;
  // Left out at the deadline while counting or rendering: a timeout, as one not read by then.
  const status = failure
    ? failure.code === 'TURN_DEADLINE'
      ? 'timeout'
      : 'error'
    : statusOf(fate, composed);
  const omittedContents = composed?.omittedContents ?? converted.omittedContents;
  const entry: Writable<TraceEntry> = {
    scope: attachment.scope,
    server: attachment.server,
    uri: attachment.uri,
    mimeType: converted.mimeType,
    sha256: converted.sha256,
    status,
    tokens: composed?.tokens ?? 0,
    originalTokens: composed?.originalTokens ?? 0,
    bytes: converted.bytes,
    cache: fate.cache,
    durationMs: fate.durationMs,
    superseded: attachment.superseded,
    omittedContents,
  };
  addProvenance(entry, attachment);
  if (failure) {
    entry.error = { code: failure.code, message: failure.message };
    return Object.freeze(entry);
  }
  const reason = composed ? reasonOf(composed) : undefined;
  if (reason !== undefined) entry.reason = reason;
  // Nothing injectable: the items' own reasons say why (e.g. an MCP Apps UI resource).
  else if (status === 'unsupported' && omittedContents.length > 0) {
    entry.reason = [...new Set(omittedContents.map((item) => item.reason))].join('; ');
  }
  if (composed?.originalTokensEstimated) entry.originalTokensEstimated = true;
  if (fate.sharedCache) entry.sharedCache = fate.sharedCache;
  if (fate.staleError) entry.error = { code: fate.staleError.code, message: fate.staleError.message };
  if (converted.notes.length > 0) entry.notes = converted.notes;
  if (change !== undefined) entry.change = change;
  return Object.freeze(entry);
}

function addProvenance(entry: Writable<TraceEntry>, attachment: TracedAttachment): void {
  if (attachment.attachmentId !== undefined) entry.attachmentId = attachment.attachmentId;
  if (attachment.template !== undefined) entry.template = attachment.template;
  if (attachment.lastModified !== undefined) entry.lastModified = attachment.lastModified;
  if (attachment.skillName !== undefined) entry.skillName = attachment.skillName;
}

/** Why the budget omitted or cut the attachment, in words; undefined when it went in whole. */
function reasonOf(composed: ComposedFacts): string | undefined {
  const { decision } = composed;
  return decision.fate === 'omitted'
    ? decision.reason
    : decision.fate === 'truncated'
      ? `cut to ${decision.contentTokens} of ${composed.originalTokensEstimated ? '~' : ''}${composed.originalTokens} content tokens to fit the budget`
      : undefined;
}

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
