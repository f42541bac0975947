import type { TraceEntry, TraceStatus } from '../types.js';
import type { AttachmentFate, ComposedFacts, TracedAttachment } from './attachment-fate.js';

/** The trace's account of one attachment: where it came from, what it cost, what became of it. */
export function toTraceEntry(
  attachment: TracedAttachment,
  fate: AttachmentFate,
  composed: ComposedFacts | undefined,
  change: TraceEntry['change'],
): TraceEntry {
  const origin = {
    scope: attachment.scope,
    ...(attachment.attachmentId !== undefined && { attachmentId: attachment.attachmentId }),
    server: attachment.server,
    uri: attachment.uri,
    ...(attachment.template !== undefined && { template: attachment.template }),
    ...(attachment.lastModified !== undefined && { lastModified: attachment.lastModified }),
    ...(attachment.skillName !== undefined && { skillName: attachment.skillName }),
  };
  if (fate.kind !== 'ready') {
    // Nothing was converted: the entry says why, as a reason (skipped) or a typed error (failed).
    return {
      ...origin,
      status: fate.status,
      tokens: 0,
      originalTokens: 0,
      bytes: 0,
      cache: fate.cache,
      durationMs: fate.durationMs,
      ...(fate.kind === 'skipped'
        ? { reason: fate.reason }
        : { error: { code: fate.error.code, message: fate.error.message } }),
      superseded: attachment.superseded,
      omittedContents: [],
    };
  }
  const { converted } = fate;
  const decision = composed?.decision;
  const status = statusOf(fate, composed);
  const omittedContents = composed?.omittedContents ?? converted.omittedContents;
  return {
    ...origin,
    mimeType: converted.mimeType,
    sha256: converted.sha256,
    status,
    // Nothing injectable: the items' own reasons say why (e.g. an MCP Apps UI resource).
    ...(status === 'unsupported' &&
      omittedContents.length > 0 && {
        reason: [...new Set(omittedContents.map((item) => item.reason))].join('; '),
      }),
    tokens: composed?.tokens ?? 0,
    originalTokens: composed?.originalTokens ?? 0,
    ...(composed?.originalTokensEstimated && { originalTokensEstimated: true }),
    bytes: converted.bytes,
    cache: fate.cache,
    ...(fate.sharedCache && { sharedCache: fate.sharedCache }),
    durationMs: fate.durationMs,
    ...(decision?.fate === 'omitted' && { reason: decision.reason }),
    ...(decision?.fate === 'truncated' && {
      reason: `cut to ${decision.contentTokens} of ${composed?.originalTokensEstimated ? '~' : ''}${composed?.originalTokens ?? 0} content tokens to fit the budget`,
    }),
    ...(fate.staleError && { error: { code: fate.staleError.code, message: fate.staleError.message } }),
    superseded: attachment.superseded,
    omittedContents,
    ...(converted.notes.length > 0 && { notes: converted.notes }),
    ...(change !== undefined && { change }),
  };
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
