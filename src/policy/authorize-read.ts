import { ContextError } from '../errors.js';
import type { AttachmentFate } from '../trace/attachment-fate.js';
import type { AccessDecision, AccessRequest, Authorizer, Principal } from './access-request.js';
import type { PolicyBoundServers } from './policy-bound-servers.js';

/** What the authorize step reads of an attachment: its target, and why it did not resolve, if it did not. */
export interface ReadTarget {
  readonly server: string;
  readonly uri: string;
  readonly error?: ContextError;
  /** A skill (its entry is asked for before its file is read). */
  readonly skill?: unknown;
}

/** A fate decided before any read: denied, or an error. */
export type RefusedFate = Extract<AttachmentFate, { kind: 'failed' }>;

/** An attachment's authorization: allowed with the binding's limits, or already decided. */
export type Access =
  | Extract<AccessDecision, { allowed: true }>
  | { readonly allowed: false; readonly fate: RefusedFate };

/**
 * A read of one attachment, decided once through the view (a denial is audited there), or
 * through the policy itself where nothing is to be audited.
 */
export function authorizeRead(
  view: Pick<PolicyBoundServers, 'authorize'> | Authorizer,
  actor: Principal,
  attachment: ReadTarget,
): Access {
  if (attachment.error) {
    return {
      allowed: false,
      fate: { kind: 'failed', status: 'error', error: attachment.error, cache: 'bypass', durationMs: 0 },
    };
  }
  const decision = view.authorize(readRequestOf(actor, attachment), 'resources/read');
  if (decision.allowed) return decision;
  const error = new ContextError('POLICY_DENIED', decision.reason, { server: attachment.server });
  return {
    allowed: false,
    fate: { kind: 'failed', status: 'denied', error, cache: 'bypass', durationMs: 0 },
  };
}

// --- Internal helpers ---

function readRequestOf(actor: Principal, attachment: ReadTarget): AccessRequest {
  // Made anew for each read (no memo: bench turnGuard showed none, docs/reuse.md).
  return Object.freeze({
    pipelineId: actor.pipelineId,
    agentId: actor.agentId,
    server: attachment.server,
    operation: 'read',
    uri: attachment.uri,
    prompt: undefined,
    tool: undefined,
  });
}
