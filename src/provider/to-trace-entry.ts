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
  const status: TraceStatus = prepared.status ?? statusOf(prepared, decision?.fate);
  return {
    scope: attachment.scope,
    ...(attachment.attachmentId !== undefined && { attachmentId: attachment.attachmentId }),
    server: attachment.server,
    uri: attachment.uri,
    ...(attachment.template !== undefined && { template: attachment.template }),
    ...(converted && { mimeType: converted.mimeType, sha256: converted.sha256 }),
    status,
    tokens: composed?.tokens ?? 0,
    originalTokens: prepared.composable?.bodyTokens.length ?? 0,
    bytes: converted?.bytes ?? 0,
    cache: prepared.cache,
    durationMs: prepared.durationMs,
    ...(decision?.fate === 'omitted' && { reason: decision.reason }),
    ...(decision?.fate === 'truncated' && {
      reason: `cut to ${decision.contentTokens} of ${prepared.composable?.bodyTokens.length ?? 0} content tokens to fit the budget`,
    }),
    ...(prepared.error && { error: { code: prepared.error.code, message: prepared.error.message } }),
    superseded: attachment.superseded,
    omittedContents: converted?.omittedContents ?? [],
    ...(change !== undefined && { change }),
  };
}

// --- Internal helpers ---

function statusOf(
  prepared: PreparedAttachment,
  fate: 'whole' | 'truncated' | 'omitted' | undefined,
): TraceStatus {
  if (fate === 'omitted' || fate === undefined) return 'omitted-budget';
  if (prepared.converted && !prepared.converted.textual) return 'unsupported';
  // Injected from a cached copy because the fresh read failed; the trace keeps that error.
  if (prepared.cache === 'stale') return 'stale';
  return fate === 'truncated' ? 'truncated' : 'injected';
}
