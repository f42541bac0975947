import type { TraceEntry, TraceStatus } from '../types.js';
import type { ComposedAttachment } from './compose-context.js';
import type { PreparedAttachment } from './fetch-attachment.js';

/** The trace's account of one attachment: where it came from, what it cost, what became of it. */
export function toTraceEntry(
  prepared: PreparedAttachment,
  composed: ComposedAttachment | undefined,
  change: TraceEntry['change'],
): TraceEntry {
  const { attachment, converted } = prepared;
  const decision = composed?.decision;
  const status: TraceStatus = prepared.status ?? statusOf(prepared, decision?.fate, composed?.injectable);
  return {
    scope: attachment.scope,
    ...(attachment.attachmentId !== undefined && { attachmentId: attachment.attachmentId }),
    server: attachment.server,
    uri: attachment.uri,
    ...(attachment.template !== undefined && { template: attachment.template }),
    ...(converted && { mimeType: converted.mimeType, sha256: converted.sha256 }),
    status,
    tokens: composed?.tokens ?? 0,
    originalTokens: composed?.originalTokens ?? 0,
    ...(composed?.originalTokensEstimated && { originalTokensEstimated: true }),
    bytes: converted?.bytes ?? 0,
    cache: prepared.cache,
    durationMs: prepared.durationMs,
    ...(decision?.fate === 'omitted' && { reason: decision.reason }),
    ...(decision?.fate === 'truncated' && {
      reason: `cut to ${decision.contentTokens} of ${composed?.originalTokensEstimated ? '~' : ''}${composed?.originalTokens ?? 0} content tokens to fit the budget`,
    }),
    ...(prepared.error && { error: { code: prepared.error.code, message: prepared.error.message } }),
    superseded: attachment.superseded,
    omittedContents: composed?.omittedContents ?? converted?.omittedContents ?? [],
    ...(converted && converted.notes.length > 0 && { notes: converted.notes }),
    ...(change !== undefined && { change }),
  };
}

// --- Internal helpers ---

function statusOf(
  prepared: PreparedAttachment,
  fate: 'whole' | 'truncated' | 'omitted' | undefined,
  injectable: boolean | undefined,
): TraceStatus {
  if (fate === 'omitted' || fate === undefined) return 'omitted-budget';
  // Nothing the model can take (binary, or media this model does not accept): only placeholders went in.
  if (injectable === false || (prepared.converted && !prepared.converted.textual)) return 'unsupported';
  // Injected from a cached copy because the fresh read failed; the trace keeps that error.
  if (prepared.cache === 'stale') return 'stale';
  return fate === 'truncated' ? 'truncated' : 'injected';
}
