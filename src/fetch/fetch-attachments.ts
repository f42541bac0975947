import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';
import type { ListingIndex } from '../cache/listing-index.js';
import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import type { Skill } from '../mcp/skill-schemas.js';
import type { Authorizer } from '../policy/access-request.js';
import type { Authorized } from '../policy/authorize-attachments.js';
import type { Access } from '../policy/authorize-read.js';
import { decideFromListing } from '../policy/decide-from-listing.js';
import { checkSkillEntry } from '../skills/check-skill-entry.js';
import type { SkillLimits } from '../skills/skill-limits.js';
import { verifySkillFile } from '../skills/verify-skill-file.js';
import type { TurnSpans } from '../trace/turn-spans.js';
import { describedByListing } from './described-by-listing.js';
import { failedFate } from './failed-fate.js';
import { type FetchContext, type FetchedAttachment, fetchAttachment } from './fetch-attachment.js';
import type { TurnAttachment } from './turn-attachment.js';
import { settledAll, untilTurnEnds } from './until-turn-ends.js';

/** What every attachment of one turn is fetched with: built once per turn. */
export interface TurnFetch extends FetchContext {
  readonly servers: FetchContext['servers'] & Pick<McpServerRegistry, 'getSkill' | 'maxReadBytes'>;
  /** Decides whether the turn's actor may list a server (its listing may then spare a read). */
  readonly policy: Pick<Authorizer, 'authorize'>;
  /** The listings as known now; absent without a cache. */
  readonly listings: ListingIndex | undefined;
  readonly skillLimits: SkillLimits;
  /** The turn deadline, for the timeout's message. */
  readonly deadlineMs: number;
  /** Whether the actor may list each server, decided once per server and turn. */
  readonly listable: Map<string, boolean>;
}

/**
 * Steps 3 and 4, fetch and convert: every attachment at once, each inside its span, converted as
 * its read arrives (a fresh copy in the cache is answered at once, without a promise), bounded by
 * the turn deadline: whatever an attachment still awaits when time is up (a connect, a skill
 * entry, a conversion behind others), it is TURN_DEADLINE. In the order given.
 */
export async function fetchAttachments(
  authorized: readonly Authorized<ResolvedAttachment>[],
  fetching: TurnFetch,
  spans: Pick<TurnSpans, 'inAttachment'>,
): Promise<readonly TurnAttachment[]> {
  const fetchOne = (one: Authorized<ResolvedAttachment>) => {
    const outcome = fetchAuthorized(one, fetching);
    return outcome instanceof Promise
      ? untilTurnEnds(outcome, one, fetching.until, fetching.deadlineMs)
      : outcome;
  };
  return settledAll(authorized.map((one) => spans.inAttachment(one.attachment, undefined, fetchOne, one)));
}

// --- Internal helpers ---

/** One attachment fetched and converted; answered at once when its content is a cache hit. */
function fetchAuthorized(
  { attachment, access }: Authorized<ResolvedAttachment>,
  fetching: TurnFetch,
): TurnAttachment | Promise<TurnAttachment> {
  if (!access.allowed) return { attachment, access, fate: access.fate, composed: undefined };
  if (attachment.skill) return fetchSkill(attachment, access, fetching);
  return fetchRead(attachment, access, fetching, undefined);
}

/** A skill: its entry first (skills/get), checked against the host's caps before any read. */
async function fetchSkill(
  attachment: ResolvedAttachment,
  access: Extract<Access, { allowed: true }>,
  fetching: TurnFetch,
): Promise<TurnAttachment> {
  const started = performance.now();
  let skill: Skill;
  try {
    skill = await fetching.servers.getSkill(attachment.server, attachment.uri, {
      actor: fetching.actor,
      ...(fetching.principal !== undefined && { principal: fetching.principal }),
      signal: fetching.until.signal,
      timeoutMs: fetching.readTimeoutMs,
    });
    checkSkillEntry(attachment.server, skill, fetching.skillLimits);
  } catch (error) {
    const fate = failedFate(error, attachment, fetching.until.deadline, performance.now() - started);
    return { attachment, access, fate, composed: undefined };
  }
  return fetchRead(attachment, access, fetching, skill);
}

function fetchRead(
  attachment: ResolvedAttachment,
  access: Extract<Access, { allowed: true }>,
  fetching: TurnFetch,
  skill: Skill | undefined,
): TurnAttachment | Promise<TurnAttachment> {
  // The listing as known now (shared per server, or the principal's own where the listing said
  // it is private; refreshed in the background, never waited for): it can spare the read
  // altogether. A per-user server's is not consulted; nor is one the pipeline may not list.
  const listed =
    fetching.servers.isPerUser(attachment.server) || !mayList(attachment.server, fetching)
      ? undefined
      : fetching.listings?.known(attachment.server, attachment.uri, fetching.actor, fetching.principal);
  const listedAs = describedByListing(
    attachment,
    listed?.annotations?.lastModified,
    listed?.annotations?.priority,
  );
  const described = skill
    ? {
        ...listedAs,
        skillName: skill.frontmatter.name,
        skillFrame: { name: skill.frontmatter.name, description: skill.frontmatter.description },
      }
    : listedAs;
  const verdict =
    listed &&
    decideFromListing(
      listed,
      attachment.ignoreAudience === true,
      Math.min(access.limits.maxBytes ?? Number.POSITIVE_INFINITY, fetching.servers.maxReadBytes),
    );
  if (verdict) {
    const fate = {
      kind: 'skipped',
      status: 'omitted',
      reason: verdict.reason,
      cache: 'bypass',
      durationMs: 0,
    } as const;
    return { attachment: described, access, fate, composed: undefined };
  }
  const fate = fetchAttachment(
    described,
    fetching,
    skill
      ? {
          limits: access.limits,
          verify: (read) =>
            verifySkillFile(attachment.server, skill, read, attachment.uri, fetching.skillLimits),
        }
      : // The decision itself carries the limits (the policy builds it once per grant).
        access,
  );
  if (fate instanceof Promise) return fate.then((settled) => fetched(described, access, settled));
  return fetched(described, access, fate);
}

function fetched(
  attachment: TurnAttachment['attachment'],
  access: Access,
  fate: FetchedAttachment,
): TurnAttachment {
  return { attachment, access, fate, composed: undefined };
}

/**
 * Whether the turn's actor may list `server` (the listing then may spare a read): decided once
 * per server and turn, not once per attachment.
 */
function mayList(server: string, { actor, policy, listable }: TurnFetch): boolean {
  let allowed = listable.get(server);
  if (allowed === undefined) {
    allowed = policy.authorize({
      pipelineId: actor.pipelineId,
      agentId: actor.agentId,
      server,
      operation: 'list',
    }).allowed;
    listable.set(server, allowed);
  }
  return allowed;
}
