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

// The read request of each frozen attachment (a stored pin resolves to the same frozen object
// every turn), made for its actor: a warm turn authorizes without copies. An attachment built for
// one turn gets a request built for it, and nothing is kept for it.
const readRequests = new WeakMap<ReadTarget, AccessRequest>();

function readRequestOf(actor: Principal, attachment: ReadTarget): AccessRequest {
  const frozen = Object.isFrozen(attachment);
  const kept = frozen ? readRequests.get(attachment) : undefined;
  if (kept && kept.pipelineId === actor.pipelineId && kept.agentId === actor.agentId) return kept;
  const request: AccessRequest = Object.freeze({
    pipelineId: actor.pipelineId,
    agentId: actor.agentId,
    server: attachment.server,
    operation: 'read',
    uri: attachment.uri,
    prompt: undefined,
    tool: undefined,
  });
  if (frozen) readRequests.set(attachment, request);
  return request;
}
