import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { EventEmitter } from 'eventemitter3';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import { collectTurnAttachments } from '../attachments/collect-turn-attachments.js';
import type { ResolvedAttachment } from '../attachments/resolve-turn-attachments.js';
import { type ComposedAttachment, composeContext } from '../budget/compose-context.js';
import { rankForBudget } from '../budget/rank-for-budget.js';
import { createTiktokenTokenizer } from '../budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../budget/tokenizer.js';
import { collectTurnInstructions } from '../budget/turn-instructions.js';
import type { CacheEvents, CacheMetrics, ContentCache, ContentCacheOptions } from '../cache/content-cache.js';
import { createFreshness, type Freshness } from '../cache/create-freshness.js';
import { type FetchContext, type FetchedAttachment, fetchAttachment } from '../cache/fetch-attachment.js';
import type { ListingFailure } from '../cache/listing-index.js';
import type { SubscriptionFailure } from '../cache/pin-subscriptions.js';
import type { ConverterRegistry } from '../convert/converter-registry.js';
import { ContextError } from '../errors.js';
import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import { raceAbort } from '../mcp/race-abort.js';
import type { Skill } from '../mcp/skill-schemas.js';
import { parseOptions } from '../options/parse-options.js';
import type { AccessPolicy } from '../policy/access-policy.js';
import type { AccessDecision, AccessRequest, Principal } from '../policy/access-request.js';
import { decideFromListing } from '../policy/decide-from-listing.js';
import type { PolicyBoundServers } from '../policy/policy-bound-servers.js';
import { addInstructionsBlock } from '../render/add-instructions-block.js';
import { renderOrder } from '../render/render-order.js';
import { checkSkillEntry } from '../skills/check-skill-entry.js';
import type { SkillLimits, SkillLimitsInput } from '../skills/skill-limits.js';
import { verifySkillFile } from '../skills/verify-skill-file.js';
import { ChangeTracker } from '../trace/change-tracker.js';
import { inSpan, type Telemetry } from '../trace/telemetry.js';
import { traceTurn } from '../trace/trace-turn.js';
import { TurnSpans, turnAttributes } from '../trace/turn-spans.js';
import type { BudgetOptions, ContextBlock, InjectionTrace, ProvideResult, Turn } from '../types.js';
import { describedByListing, type ListedAttachment } from './described-by-listing.js';
import { budgetOverrideSchema, providerOptionsSchema, type ResolvedBudget } from './provider-options.js';
import { startTurnDeadline } from './turn-deadline.js';

export interface ResourceContextProviderOptions {
  readonly servers: McpServerRegistry;
  readonly attachments: AttachmentStore;
  readonly policy: AccessPolicy;
  readonly budget: BudgetOptions;
  /** Defaults to tiktoken `o200k_base`, shared per process. */
  readonly tokenizer?: Tokenizer;
  /**
   * The `initialize` instructions of the servers a turn injects from, as a framed section after
   * the preamble that ranks below the host's own instructions; counted in the turn's budget
   * (at most `maxTokens`, and never more than a quarter of it). Default `false` (off): they are
   * written for agents calling the server's tools and would cost tokens on every turn.
   * `exclude` names servers whose instructions never go in.
   */
  readonly serverInstructions?: { readonly maxTokens: number; readonly exclude?: readonly string[] } | false;
  /** Converters by media type: `createConverterRegistry([...yours])`; default: the built-in ones. */
  readonly converters?: ConverterRegistry;
  readonly readTimeoutMs?: number;
  readonly turnDeadlineMs?: number;
  /**
   * Caps on skills (pins with `skill: true`): files and total bytes per skill, checked from the
   * skill's entry before anything is read, and skills per turn. Defaults: the skills extension's
   * limits (512 files, 16 MiB) and 8 skills a turn.
   */
  readonly skills?: SkillLimitsInput;
  /**
   * The content cache: options for the provider's own, or a shared instance (several providers
   * over one registry), or `false` to read every attachment every turn.
   */
  readonly cache?: ContentCache | ContentCacheOptions | false;
  /**
   * A span per turn with child spans per step and attachment, and turn metrics:
   * `openTelemetry()` from `mcp-resource-context/opentelemetry`. None by default (no cost).
   */
  readonly telemetry?: Telemetry;
}

export type ProviderEvents = CacheEvents & {
  /** A pinned resource could not be subscribed to; it is still re-read when its TTL runs out. */
  'subscription-failed': [failure: SubscriptionFailure];
  /**
   * A background refresh of a server's listing (for annotations) failed; turns go on with the
   * listing known before, or none.
   */
  'listing-failed': [failure: ListingFailure];
  /** Once per turn, after the context is composed: the trace, and the blocks going to the model. */
  injected: [trace: InjectionTrace, blocks: readonly ContextBlock[]];
};

/**
 * The pipeline stage that runs before every model call: it turns the MCP resources pinned to
 * the pipeline and the conversation, and attached to the message, into framed model context
 * within a token budget, and reports what happened to each in an InjectionTrace.
 *
 * One turn: resolve → authorize → fetch → convert → budget → render → trace.
 */
export class ResourceContextProvider extends EventEmitter<ProviderEvents> {
  readonly #servers: McpServerRegistry;
  readonly #attachments: AttachmentStore;
  readonly #policy: AccessPolicy;
  readonly #budget: ResolvedBudget;
  readonly #tokenizer: Tokenizer;
  readonly #ownsTokenizer: boolean;
  readonly #readTimeoutMs: number;
  readonly #converters: ConverterRegistry | undefined;
  readonly #instructionsMaxTokens: number | undefined;
  readonly #instructionsExcluded: ReadonlySet<string>;
  readonly #turnDeadlineMs: number;
  readonly #skillLimits: SkillLimits;
  /** Caches and subscriptions; absent with `cache: false`. */
  readonly #freshness: Freshness | undefined;
  readonly #changes = new ChangeTracker();
  readonly #telemetry: Telemetry | undefined;

  constructor(options: ResourceContextProviderOptions) {
    super();
    const parsed = parseOptions(providerOptionsSchema, options, 'options');
    this.#servers = options.servers;
    this.#attachments = options.attachments;
    this.#policy = options.policy;
    this.#policy.refuseUnknownServers(this.#servers.serverNames);
    this.#budget = parsed.budget;
    this.#readTimeoutMs = parsed.readTimeoutMs;
    this.#converters = options.converters;
    this.#instructionsMaxTokens =
      parsed.serverInstructions === false ? undefined : parsed.serverInstructions.maxTokens;
    this.#instructionsExcluded = new Set(parsed.serverInstructions ? parsed.serverInstructions.exclude : []);
    this.#turnDeadlineMs = parsed.turnDeadlineMs;
    this.#skillLimits = parsed.skills;
    this.#telemetry = options.telemetry;
    this.#ownsTokenizer = options.tokenizer === undefined;
    this.#tokenizer = options.tokenizer ?? createTiktokenTokenizer();
    if (options.cache !== false) {
      this.#freshness = createFreshness(this.#servers, options.cache, (name, ...payload) => {
        (this.emit as (name: string, ...payload: unknown[]) => boolean)(name, ...payload);
      });
    }
  }

  /** (server, uri) pairs subscribed for pins, for hosts that show or test it. */
  get subscriptions(): { server: string; uri: string }[] {
    return this.#freshness?.subscriptions.subscribed ?? [];
  }

  /** Resolves when every subscribe/unsubscribe sent for pins so far has been answered. */
  async subscriptionsSettled(): Promise<void> {
    await this.#freshness?.subscriptions.settled();
  }

  /** Resolves when every background listing refresh started so far has settled. */
  async listingsSettled(): Promise<void> {
    await this.#freshness?.listings.settled();
  }

  /**
   * Cache hits, misses, stale serves, evictions, bytes held, invalidations, reads in flight, and
   * the bytes the derived cache holds (conversions, token arrays); undefined without a cache.
   */
  get metrics(): (CacheMetrics & { readonly derivedBytesHeld: number }) | undefined {
    const freshness = this.#freshness;
    return freshness && { ...freshness.cache.metrics, derivedBytesHeld: freshness.derived.bytesHeld };
  }

  /** The pin store turns read from (the inspector lists it). */
  get attachments(): AttachmentStore {
    return this.#attachments;
  }

  get tokenizer(): Tokenizer {
    return this.#tokenizer;
  }

  async provide(turn: Turn): Promise<ProvideResult> {
    const telemetry = this.#telemetry;
    if (!telemetry) return this.#provide(turn, new TurnSpans(undefined));
    return inSpan(telemetry, 'mcp-context turn', turnAttributes(turn), async (span) => {
      // A turn nobody records (no tracer registered, not sampled) makes no step spans either.
      const result = await this.#provide(turn, new TurnSpans(span && telemetry));
      const { trace } = result;
      span?.setAttributes({
        'mcp_context.turn.id': trace.turnId,
        'mcp_context.budget.max_tokens': trace.budget.maxTokens,
        'mcp_context.budget.used_tokens': trace.budget.usedTokens,
        'mcp_context.attachments': trace.entries.length,
      });
      telemetry.recordTurn(trace);
      return result;
    });
  }

  // The turn within its deadline, whose timer ends with the turn however the turn ends.
  async #provide(turn: Turn, spans: TurnSpans): Promise<ProvideResult> {
    const deadline = startTurnDeadline(this.#turnDeadlineMs);
    try {
      return await this.#turn(turn, spans, deadline.signal);
    } finally {
      deadline.end();
    }
  }

  // The turn itself; `spans` wraps its steps in spans when telemetry records.
  async #turn(turn: Turn, spans: TurnSpans, deadline: AbortSignal): Promise<ProvideResult> {
    const started = performance.now();
    const startedAt = new Date().toISOString();
    const actor = actorOf(turn);
    this.#policy.requireKnown(actor);
    const budget = this.#turnBudget(turn);
    const signal = turn.signal ? AbortSignal.any([turn.signal, deadline]) : deadline;
    // Every attachment of the turn waits on these signals: one listener each is expected.
    setMaxListeners(0, deadline, signal);

    // 1 resolve: pins and message attachments, each validated and resolved once
    const resolved = await spans.step('resolve', () => collectTurnAttachments(this.#attachments, turn));
    spans.openAttachments(resolved);

    // 2 authorize: each once, through the pipeline's policy-bound view, which audits denials
    const view = this.#policy.bind(this.#servers, actor);
    const authorize = (attachment: ResolvedAttachment) => authorizeRead(view, actor, attachment);
    // One access per attachment, in the same order (no pair per attachment per turn).
    const accesses = capSkills(
      resolved,
      resolved.map((attachment, index) => spans.inAttachment(index, 'authorize', authorize, attachment)),
      this.#skillLimits.maxPerTurn,
    );
    this.#keepSubscribed(turn, resolved, accesses);

    // 3 fetch, 4 convert: concurrently per attachment, bounded by the turn deadline: whatever
    // an attachment still awaits when time is up (a connect, a skill entry, a conversion behind
    // others), it is TURN_DEADLINE.
    const turnContext: TurnContext = {
      turn,
      actor,
      listable: new Map(),
      fetch: {
        actor,
        servers: this.#servers,
        ...(turn.principal !== undefined && { principal: turn.principal }),
        cache: this.#freshness?.cache,
        bypassCache: turn.bypassCache === true,
        ...(this.#converters && { converters: this.#converters }),
        ...(this.#freshness && { derived: this.#freshness.derived }),
        signal,
        deadline,
        deadlineAt: started + this.#turnDeadlineMs,
        readTimeoutMs: this.#readTimeoutMs,
        ...(spans.telemetry && { telemetry: spans.telemetry }),
      },
    };
    const fetchOne = (index: number) =>
      this.#fetch(resolved[index] as ResolvedAttachment, accesses[index] as Access, turnContext);
    const fetched = await untilTurnEnds(
      resolved.map((_, index) => spans.inAttachment(index, undefined, fetchOne, index)),
      resolved,
      signal,
      this.#turnDeadlineMs,
    );
    if (turn.signal?.aborted) {
      throw new ContextError('ABORTED', 'the turn was aborted by the host', { value: turn.turnId });
    }

    // 5 budget: rank what is ready, pay for the server instructions first
    // Ranked as positions into `fetched`, so that each composition lands on its item below.
    // An attachment is its own budget rank: scope, priority and the listed priority.
    const ranked = rankForBudget(
      readyPositionsOf(fetched),
      (position) => (fetched[position] as TurnItem).attachment,
    );
    const ready = ranked.map((position) => fetched[position] as ReadyItem);
    const instructionsMaxTokens = this.#instructionsMaxTokens;
    const instructions =
      instructionsMaxTokens === undefined
        ? undefined
        : await spans.step('instructions', () =>
            collectTurnInstructions(
              this.#servers,
              [...new Set(ready.map((item) => item.attachment.server))].filter(
                (name) => !this.#instructionsExcluded.has(name),
              ),
              this.#tokenizer,
              instructionsMaxTokens,
              budget.maxTokens,
            ),
          );

    // 5 budget, 6 render: plan, cut, frame and count within what is left, then place the instructions
    const composed = await spans.step('budget', () =>
      composeContext(
        ready.map((item) => item.fate.composable),
        this.#tokenizer,
        {
          ...budget,
          maxTokens: budget.maxTokens - (instructions?.tokens ?? 0),
          renderOrder: renderOrder(ready.map((item) => item.attachment.scope)),
          ...(turn.model !== undefined && { model: turn.model }),
          ...(turn.message?.text !== undefined && { query: turn.message.text }),
          ...(this.#freshness && { derived: this.#freshness.derived }),
        },
      ),
    );
    const context = addInstructionsBlock(composed, instructions);

    // 7 trace
    // composeContext answers one record per attachment, in the order given; the trace takes one
    // per item of the turn, in resolve order.
    const composition = new Array<ComposedAttachment | undefined>(fetched.length);
    for (let index = 0; index < ranked.length; index++)
      composition[ranked[index] as number] = composed.attachments[index];
    const trace = traceTurn(
      {
        turnId: turn.turnId ?? randomUUID(),
        pipelineId: turn.pipelineId,
        ...(turn.conversationId !== undefined && { conversationId: turn.conversationId }),
        startedAt,
        durationMs: performance.now() - started,
        budget: { maxTokens: budget.maxTokens, usedTokens: context.usedTokens },
        items: fetched,
        composition,
        ...(context.instructions && { instructions: context.instructions }),
      },
      this.#changes,
    );
    spans.closeAttachments(trace.entries);
    this.emit('injected', trace, context.blocks);
    return { blocks: context.blocks, trace };
  }

  /** Frees the default tokenizer. A tokenizer passed in options stays the caller's to dispose. */
  dispose(): void {
    if (this.#ownsTokenizer) this.#tokenizer.dispose();
    this.#freshness?.dispose();
    this.removeAllListeners();
  }

  // --- Internal helpers ---

  /**
   * Pins (not one-off message attachments) stay subscribed while some scope holds them: the
   * turn's own resolution and authorization decide which, nothing is resolved again.
   */
  #keepSubscribed(turn: Turn, resolved: readonly ResolvedAttachment[], accesses: readonly Access[]): void {
    const subscriptions = this.#freshness?.subscriptions;
    if (!subscriptions) return;
    const held: Record<'pipeline' | 'conversation', Target[]> = { pipeline: [], conversation: [] };
    for (let index = 0; index < resolved.length; index++) {
      const attachment = resolved[index] as ResolvedAttachment;
      if (!accesses[index]?.allowed) continue;
      // The attachment is its own (server, uri) target: no copy per pin per turn.
      const target: Target = attachment;
      if (attachment.scope !== 'message') held[attachment.scope].push(target);
      // A pin merged into a narrower scope's attachment is still held by its own scope.
      for (const { scope } of attachment.superseded) {
        if (scope !== 'message' && scope !== attachment.scope) held[scope].push(target);
      }
    }
    subscriptions.reconcile(`pipeline:${turn.pipelineId}`, held.pipeline);
    if (turn.conversationId)
      subscriptions.reconcile(`conversation:${turn.conversationId}`, held.conversation);
  }

  #turnBudget(turn: Turn): ResolvedBudget {
    if (!turn.budget) return this.#budget;
    return { ...this.#budget, ...parseOptions(budgetOverrideSchema, turn.budget, 'turn.budget') };
  }

  /** One attachment fetched and converted; answered at once when its content is a cache hit. */
  #fetch(attachment: ResolvedAttachment, access: Access, context: TurnContext): TurnItem | Promise<TurnItem> {
    if (!access.allowed) return { attachment, fate: access.fate };
    if (attachment.skill) return this.#fetchSkill(attachment, access, context);
    return this.#fetchRead(attachment, access, context, undefined);
  }

  /** A skill: its entry first (skills/get), checked against the host's caps before any read. */
  async #fetchSkill(
    attachment: ResolvedAttachment,
    access: Extract<Access, { allowed: true }>,
    context: TurnContext,
  ): Promise<TurnItem> {
    const { turn, actor, fetch } = context;
    const started = performance.now();
    let skill: Skill;
    try {
      skill = await this.#servers.getSkill(attachment.server, attachment.uri, {
        actor,
        ...(turn.principal !== undefined && { principal: turn.principal }),
        signal: fetch.signal,
        timeoutMs: this.#readTimeoutMs,
      });
      checkSkillEntry(attachment.server, skill, this.#skillLimits);
    } catch (error) {
      return {
        attachment,
        fate: failedFate(error, attachment, fetch.deadline, performance.now() - started),
      };
    }
    return this.#fetchRead(attachment, access, context, skill);
  }

  #fetchRead(
    attachment: ResolvedAttachment,
    access: Extract<Access, { allowed: true }>,
    context: TurnContext,
    skill: Skill | undefined,
  ): TurnItem | Promise<TurnItem> {
    const { actor, fetch } = context;
    // The listing as known now (shared per server; refreshed in the background, never waited
    // for): it can spare the read altogether. Listings are kept per server, not per principal: a
    // per-user server's is not consulted; nor is one the pipeline may not list.
    const listed =
      this.#servers.isPerUser(attachment.server) || !this.#mayList(attachment.server, context)
        ? undefined
        : this.#freshness?.listings.known(attachment.server, attachment.uri, actor);
    const lastModified = listed?.annotations?.lastModified;
    const annotationPriority = listed?.annotations?.priority;
    const listedAs = describedByListing(attachment, lastModified, annotationPriority);
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
        Math.min(access.limits.maxBytes ?? Number.POSITIVE_INFINITY, this.#servers.maxReadBytes),
      );
    if (verdict) {
      const fate = {
        kind: 'skipped',
        status: 'omitted',
        reason: verdict.reason,
        cache: 'bypass',
        durationMs: 0,
      } as const;
      return { attachment: described, fate };
    }
    const fate = fetchAttachment(
      described,
      fetch,
      skill
        ? {
            limits: access.limits,
            verify: (read) => verifySkillFile(attachment.server, skill, read, attachment.uri),
          }
        : // The decision itself carries the limits (the policy builds it once per grant).
          access,
    );
    if (fate instanceof Promise) return fate.then((settled) => turnItem(described, settled));
    return turnItem(described, fate);
  }

  /**
   * Whether the turn's actor may list `server` (the listing then may spare a read): decided once
   * per server and turn, not once per attachment.
   */
  #mayList(server: string, { actor, listable }: TurnContext): boolean {
    let allowed = listable.get(server);
    if (allowed === undefined) {
      allowed = this.#policy.authorize({
        pipelineId: actor.pipelineId,
        agentId: actor.agentId,
        server,
        operation: 'list',
      }).allowed;
      listable.set(server, allowed);
    }
    return allowed;
  }
}

// --- Module helpers ---

/** One attachment of the turn: where it came from and what became of it. */
interface TurnItem {
  /** With what its listing says of it (the listed priority ranks equal attachments), and its skill's name. */
  readonly attachment: ListedAttachment & { readonly skillName?: string };
  readonly fate: FetchedAttachment;
}

type ReadyItem = TurnItem & { readonly fate: Extract<FetchedAttachment, { kind: 'ready' }> };

type Target = { server: string; uri: string };

/** What every attachment of one turn is fetched with. */
interface TurnContext {
  readonly turn: Turn;
  readonly actor: Principal;
  /** Whether the actor may list each server, as decided this turn (see #mayList). */
  readonly listable: Map<string, boolean>;
  readonly fetch: FetchContext;
}

function turnItem(attachment: TurnItem['attachment'], fate: FetchedAttachment): TurnItem {
  const kept = keptItems.get(fate);
  if (kept && kept.attachment === attachment) return kept;
  const item = { attachment, fate };
  if (Object.isFrozen(attachment)) keptItems.set(fate, item);
  return item;
}

// The item made for each fate of a frozen attachment: a cache hit served again is the same fate
// object every turn (fetchAttachment keeps it), and a stored pin the same frozen attachment, so a
// warm turn's item for an unchanged attachment is the last one.
const keptItems = new WeakMap<FetchedAttachment, TurnItem>();

/** An attachment's authorization: allowed with the binding's limits, or already decided. */
type Access =
  | Extract<AccessDecision, { allowed: true }>
  | { readonly allowed: false; readonly fate: Extract<FetchedAttachment, { kind: 'failed' }> };

/** Where the items that are ready for the budget stand in the turn's items. */
function readyPositionsOf(items: readonly TurnItem[]): number[] {
  let ready = 0;
  for (const item of items) if (item.fate.kind === 'ready') ready++;
  // Counted first: one array of the right length, not one grown by pushes, every turn.
  const positions = new Array<number>(ready);
  let next = 0;
  for (let position = 0; position < items.length; position++)
    if (items[position]?.fate.kind === 'ready') positions[next++] = position;
  return positions;
}

/** Who a turn acts as: its pipeline, and its agent where the host has one. */
function actorOf(turn: Turn): Principal {
  return { pipelineId: turn.pipelineId, ...(turn.agentId !== undefined && { agentId: turn.agentId }) };
}

/** A read of one attachment, decided once through the view (a denial is audited there). */
function authorizeRead(view: PolicyBoundServers, actor: Principal, attachment: ResolvedAttachment): Access {
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

// The read request of each frozen attachment (a stored pin resolves to the same frozen object
// every turn), made for its actor: a warm turn authorizes without copies. An attachment built for
// one turn gets a request built for it, and nothing is kept for it.
const readRequests = new WeakMap<ResolvedAttachment, AccessRequest>();

function readRequestOf(actor: Principal, attachment: ResolvedAttachment): AccessRequest {
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

/**
 * Skills beyond the host's per-turn cap, in rank order, are errors (LIMIT_EXCEEDED) before
 * anything is asked of their servers. `accesses` is one per attachment, in the same order.
 */
function capSkills(
  resolved: readonly ResolvedAttachment[],
  accesses: Access[],
  maxPerTurn: number,
): Access[] {
  let skills = 0;
  for (let index = 0; index < resolved.length; index++) {
    const attachment = resolved[index] as ResolvedAttachment;
    if (!attachment.skill || !accesses[index]?.allowed) continue;
    skills += 1;
    if (skills <= maxPerTurn) continue;
    const error = new ContextError(
      'LIMIT_EXCEEDED',
      `this turn already loads ${maxPerTurn} skill(s), the host's cap (skills.maxPerTurn)`,
      { server: attachment.server, field: 'skills.maxPerTurn', value: maxPerTurn },
    );
    accesses[index] = {
      allowed: false,
      fate: { kind: 'failed', status: 'error', error, cache: 'bypass', durationMs: 0 },
    };
  }
  return accesses;
}

/**
 * Each attachment's outcome, or — for every one still pending when the turn's signal aborts
 * (deadline or host) — a TURN_DEADLINE timeout; what was still running goes on in the
 * background (a shared read still fills the cache). One wait on the signal for the whole turn.
 */
async function untilTurnEnds(
  outcomes: readonly (TurnItem | Promise<TurnItem>)[],
  resolved: readonly ResolvedAttachment[],
  signal: AbortSignal,
  deadlineMs: number,
): Promise<TurnItem[]> {
  // Everything answered at once (a warm turn) waits on nothing: the outcomes are the items.
  if (!outcomes.some((outcome) => outcome instanceof Promise)) return outcomes as TurnItem[];
  const started = performance.now();
  const settled: (TurnItem | undefined)[] = new Array(outcomes.length);
  const pending: Promise<void>[] = [];
  for (let index = 0; index < outcomes.length; index++) {
    const outcome = outcomes[index];
    if (outcome instanceof Promise) {
      pending.push(
        outcome.then((item) => {
          settled[index] = item;
        }),
      );
    } else settled[index] = outcome;
  }
  try {
    await raceAbort(Promise.all(pending), signal);
  } catch (error) {
    if (!signal.aborted) throw error;
  }
  return resolved.map((attachment, index) => {
    const item = settled[index];
    if (item) return item;
    const failure = new ContextError(
      'TURN_DEADLINE',
      `${attachment.uri} was not ready by the turn deadline (${deadlineMs} ms)`,
      { server: attachment.server },
    );
    const fate = {
      kind: 'failed',
      status: 'timeout',
      error: failure,
      cache: 'miss',
      durationMs: performance.now() - started,
    } as const;
    return { attachment, fate };
  });
}

/** A skill's entry that could not be had or is refused: an error (or timeout) for the trace. */
function failedFate(
  error: unknown,
  attachment: ResolvedAttachment,
  deadline: AbortSignal,
  durationMs: number,
): Extract<FetchedAttachment, { kind: 'failed' }> {
  const failure = ContextError.isInstance(error)
    ? error
    : new ContextError(
        'INTERNAL_ERROR',
        `${attachment.uri}: ${String(error)}`,
        { server: attachment.server },
        error,
      );
  const status = deadline.aborted || failure.code === 'REQUEST_TIMEOUT' ? 'timeout' : 'error';
  return { kind: 'failed', status, error: failure, cache: 'bypass', durationMs };
}
