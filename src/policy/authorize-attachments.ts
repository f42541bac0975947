import { ContextError } from '../errors.js';
import type { TurnSpans } from '../trace/turn-spans.js';
import type { Principal } from './access-request.js';
import { type Access, authorizeRead, type ReadTarget } from './authorize-read.js';
import type { PolicyBoundServers } from './policy-bound-servers.js';

/** An attachment after step 2: what the policy decided for it, beside it. */
export interface Authorized<Target extends ReadTarget = ReadTarget> {
  readonly attachment: Target;
  readonly access: Access;
}

/**
 * Step 2, authorize: each attachment once, through the pipeline's policy-bound view (which audits
 * each denial), inside its span. Skills beyond the host's per-turn cap, in rank order, are errors
 * (LIMIT_EXCEEDED) before anything is asked of their servers.
 */
export function authorizeAttachments<Target extends ReadTarget>(
  view: PolicyBoundServers,
  actor: Principal,
  attachments: readonly Target[],
  maxSkillsPerTurn: number,
  spans: Pick<TurnSpans, 'inAttachment'>,
): Authorized<Target>[] {
  const authorize = (attachment: Target) => authorizeRead(view, actor, attachment);
  let skills = 0;
  return attachments.map((attachment) => {
    const access = spans.inAttachment(attachment, 'authorize', authorize, attachment);
    if (!attachment.skill || !access.allowed) return { attachment, access };
    skills += 1;
    if (skills <= maxSkillsPerTurn) return { attachment, access };
    return { attachment, access: overSkillCap(attachment, maxSkillsPerTurn) };
  });
}

// --- Internal helpers ---

function overSkillCap(attachment: ReadTarget, maxPerTurn: number): Access {
  const error = new ContextError(
    'LIMIT_EXCEEDED',
    `this turn already loads ${maxPerTurn} skill(s), the host's cap (skills.maxPerTurn)`,
    { server: attachment.server, field: 'skills.maxPerTurn', value: maxPerTurn },
  );
  return { allowed: false, fate: { kind: 'failed', status: 'error', error, cache: 'bypass', durationMs: 0 } };
}
