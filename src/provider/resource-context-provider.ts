import { EventEmitter } from 'eventemitter3';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import { collectTurnAttachments } from '../attachments/collect-turn-attachments.js';
import { resolveCollected } from '../attachments/resolve-collected.js';
import type { TurnAttachments } from '../attachments/resolve-turn-attachments.js';
import type { ComposeOptions } from '../budget/compose-context.js';
import { composeTurn, type TurnContext } from '../budget/compose-turn.js';
import { type ChosenTokenizer, ModelTokenizers } from '../budget/model-tokenizers.js';
import { rankForBudget } from '../budget/rank-for-budget.js';
import { createTiktokenTokenizer } from '../budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../budget/tokenizer.js';
import { collectTurnInstructions } from '../budget/turn-instructions.js';
import type { CacheMetrics } from '../cache/content-cache.js';
import { createFreshness, type Freshness } from '../cache/create-freshness.js';
import type { ConverterRegistry } from '../convert/converter-registry.js';
import { ContextError } from '../errors.js';
import { fetchAttachments, type TurnFetch } from '../fetch/fetch-attachments.js';
import { isReady, type ReadyAttachment } from '../fetch/turn-attachment.js';
import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import { holdLoopTurns, releaseLoopTurns } from '../mcp/take-loop-turn.js';
import { parseOptions } from '../options/parse-options.js';
import type { AccessPolicy } from '../policy/access-policy.js';
import type { Principal } from '../policy/access-request.js';
import { authorizeAttachments } from '../policy/authorize-attachments.js';
import type { InstructionsSection } from '../render/add-instructions-block.js';
import type { SkillLimits } from '../skills/skill-limits.js';
import { ChangeTracker } from '../trace/change-tracker.js';
import { isoNow } from '../trace/iso-now.js';
import { randomTurnId } from '../trace/random-turn-id.js';
import { inStartedSpan, type Telemetry, type TelemetrySpan } from '../trace/telemetry.js';
import type { TracedSession } from '../trace/trace-servers.js';
import { type TurnFacts, traceTurn } from '../trace/trace-turn.js';
import { TurnSpans, turnAttributes } from '../trace/turn-spans.js';
import type { ProvideResult, Turn } from '../types.js';
import { actorOf } from './actor-of.js';
import { checkTurnIds } from './check-turn-ids.js';
import { keepSubscribed } from './keep-subscribed.js';
import { KeptTurns } from './kept-turns.js';
import type { ProviderEvents } from './provider-events.js';
import { budgetOverrideSchema, providerOptionsSchema, type ResolvedBudget } from './provider-options.js';
import type { ResourceContextProviderOptions } from './resource-context-provider-options.js';
import { throwIfHostAborted } from './throw-if-host-aborted.js';
import { TurnDeadline } from './turn-deadline.js';
import type { TurnRun } from './turn-run.js';

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
  /** Each turn's tokenizer by its model's family; absent when the host gave one `tokenizer` for all. */
  readonly #models: ModelTokenizers | undefined;
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
  /** Turns answered again while nothing they depend on changed; absent without a cache. */
  readonly #kept: KeptTurns | undefined;

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
    this.#models =
      options.tokenizer === undefined ? new ModelTokenizers(this.#tokenizer, options.tokenizers) : undefined;
    if (options.cache !== false) {
      this.#freshness = createFreshness(this.#servers, options.cache, (name, ...payload) => {
        (this.emit as (name: string, ...payload: unknown[]) => boolean)(name, ...payload);
      });
    }
    // Kept turns wrap the turn's steps (see #provide): they need the caches whose versions they check.
    if (parsed.keptTurns && this.#freshness) {
      const { cache, listings, sessionsOpened, subscriptions } = this.#freshness;
      this.#kept = new KeptTurns(
        { cache, listings, changes: this.#changes, sessionsOpened, subscriptions, policy: this.#policy },
        parsed.keptTurns,
      );
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
  get metrics():
    | (CacheMetrics & {
        readonly derivedBytesHeld: number;
        readonly keptTurns: number;
        readonly keptTurnBytes: number;
      })
    | undefined {
    const freshness = this.#freshness;
    return (
      freshness && {
        ...freshness.cache.metrics,
        derivedBytesHeld: freshness.derived.bytesHeld,
        keptTurns: this.#kept?.size ?? 0,
        keptTurnBytes: this.#kept?.bytesHeld ?? 0,
      }
    );
  }

  /** The pin store turns read from (the inspector lists it). */
  get attachments(): AttachmentStore {
    return this.#attachments;
  }

  get tokenizer(): Tokenizer {
    return this.#tokenizer;
  }

  provide(turn: Turn): Promise<ProvideResult> {
    // Not async itself: a turn that no tracer records is #provide's promise, not one wrapping it.
    const telemetry = this.#telemetry;
    let span: TelemetrySpan | undefined;
    try {
      span = telemetry?.startSpan('mcp-context turn', turnAttributes(turn));
    } catch (error) {
      // A host's telemetry that throws fails the turn as a rejection, as any other failure does.
      return Promise.reject(error);
    }
    // A turn nobody records (no telemetry, no tracer registered, not sampled) makes no step spans
    // either, and runs outside any span: only its metrics are recorded.
    if (!span || !telemetry) return this.#provide(turn, TurnSpans.unrecorded);
    return inStartedSpan(telemetry, span, async () => {
      const result = await this.#provide(turn, new TurnSpans(telemetry));
      const { trace } = result;
      span.setAttributes({
        'mcp_context.turn.id': trace.turnId,
        'mcp_context.budget.max_tokens': trace.budget.maxTokens,
        'mcp_context.budget.used_tokens': trace.budget.usedTokens,
        'mcp_context.budget.tokenizer': trace.budget.tokenizer,
        'mcp_context.budget.exact': trace.budget.exact,
        'mcp_context.attachments': trace.entries.length,
      });
      return result;
    });
  }

  // The turn within its deadline, whose timer ends with the turn however the turn ends: step 1's
  // listing, then the rest (#steps), or — with kept turns — what they answer for this turn's inputs.
  // Telemetry's metrics record the turn once it is answered.
  async #provide(turn: Turn, spans: TurnSpans): Promise<ProvideResult> {
    const deadline = new TurnDeadline(this.#turnDeadlineMs, turn.signal);
    try {
      const startedAt = isoNow();
      checkTurnIds(turn);
      const actor = actorOf(turn);
      this.#requireKnown(actor, turn);
      const budget = this.#turnBudget(turn);
      const counting = await this.#turnTokenizer(turn);

      // 1 resolve: pins (with their versions) and message attachments, each validated; merged in #steps
      const listed = await spans.step('resolve', () => collectTurnAttachments(this.#attachments, turn));
      const steps = () => this.#steps({ turn, spans, deadline, startedAt, actor, budget, counting, listed });
      const started = { startedAt, at: deadline.started };
      const result = this.#kept
        ? await this.#kept.provide(turn, actor, listed, budget, started, steps, this.#sessionOf(turn))
        : (await steps()).result;
      this.#telemetry?.recordTurn(result.trace);
      this.emit('injected', result.trace, result.blocks);
      return result;
    } finally {
      deadline.end();
    }
  }

  // Step 1's merge of what it listed, then steps 2–7; `spans` wraps them in spans when telemetry records.
  async #steps({
    turn,
    spans,
    deadline,
    startedAt,
    actor,
    budget,
    counting,
    listed,
  }: ResolvedTurn): Promise<TurnRun> {
    const resolved = resolveCollected(listed);
    const { tokenizer } = counting;
    spans.openAttachments(resolved);
    // 2 authorize: each once, through the pipeline's policy-bound view, which audits denials
    const view = this.#policy.bind(this.#servers, actor);
    const authorized = authorizeAttachments(view, actor, resolved, this.#skillLimits.maxPerTurn, spans);
    const subscribed = keepSubscribed(this.#freshness?.subscriptions, turn, authorized);
    // What the listings and the sessions answer as this turn consults them (before any read can wait).
    const listingGeneration = this.#freshness?.listings.generation ?? 0;
    const sessionsOpened =
      this.#instructionsMaxTokens === undefined ? undefined : this.#freshness?.sessionsOpened();

    // 3 fetch, 4 convert: concurrently per attachment, bounded by the turn deadline
    const fetching = this.#turnFetch(turn, actor, deadline, spans);
    const attachments = await fetchAttachments(authorized, fetching, spans);
    throwIfHostAborted(turn);

    // 5 budget, 6 render: rank what is ready, pay for the server instructions first, then plan,
    // cut, frame and count within what is left. An attachment is its own budget rank.
    const ready = rankForBudget(attachments.filter(isReady), (one) => one.attachment);
    const instructions = await this.#instructions(ready, budget.maxTokens, tokenizer, spans);
    const options = this.#composeOptions(turn, budget, counting, deadline);
    // Ahead of the CPU work of reads still arriving (those past the deadline fill the cache later).
    const context = await ahead(() =>
      spans.step('budget', () => composeTurn(ready, tokenizer, options, instructions)),
    );

    // 7 trace
    const facts = turnFacts(turn, startedAt, deadline.started, budget.maxTokens, counting, options, context);
    const trace = traceTurn(
      { ...facts, items: attachments, sessionOf: this.#sessionOf(turn) },
      this.#changes,
    );
    spans.closeAttachments(trace.entries);
    // Frozen, as the trace's entries are: a kept turn answers the same arrays again.
    const result = { blocks: Object.freeze(context.blocks), trace };
    const listedServers = [...fetching.listable].flatMap(([server, listed]) => (listed ? [server] : []));
    const contents = fetching.hits ?? [];
    return {
      result,
      inputs: {
        ...{ listed, attachments, contents, listingGeneration, listedServers, subscribed },
        ...(sessionsOpened !== undefined && { sessionsOpened }),
      },
    };
  }

  /** What the turn's trace says of each server's session: revision, how pins are kept fresh (the principal's, per-user). */
  #sessionOf(turn: Turn): (server: string) => TracedSession | undefined {
    const servers = this.#servers;
    const { principal } = turn;
    return (server) => {
      const protocolVersion = servers.protocolVersionOf(server, principal);
      if (protocolVersion === undefined) return undefined;
      const pinUpdates = servers.pinUpdatesOf(server, principal);
      return pinUpdates === undefined ? { protocolVersion } : { protocolVersion, pinUpdates };
    };
  }

  /** What every attachment of the turn is fetched with. */
  #turnFetch(turn: Turn, actor: Principal, deadline: TurnDeadline, spans: TurnSpans): TurnFetch {
    return {
      actor,
      servers: this.#servers,
      policy: this.#policy,
      listings: this.#freshness?.listings,
      skillLimits: this.#skillLimits,
      listable: new Map(),
      ...(turn.principal !== undefined && { principal: turn.principal }),
      cache: this.#freshness?.cache,
      bypassCache: turn.bypassCache === true,
      ...(this.#converters && { converters: this.#converters }),
      ...(this.#freshness && { derived: this.#freshness.derived }),
      // Its signals are made when a read first asks for them (a warm turn's never does).
      until: deadline,
      deadlineAt: deadline.at,
      deadlineMs: this.#turnDeadlineMs,
      readTimeoutMs: this.#readTimeoutMs,
      ...(spans.telemetry && { telemetry: spans.telemetry }),
      hits: [],
    };
  }

  /** The server instructions section for the servers the turn injects from, when they are on. */
  async #instructions(
    ready: readonly ReadyAttachment[],
    turnMaxTokens: number,
    tokenizer: Tokenizer,
    spans: TurnSpans,
  ): Promise<InstructionsSection | undefined> {
    const maxTokens = this.#instructionsMaxTokens;
    if (maxTokens === undefined) return undefined;
    const names = [...new Set(ready.map((one) => one.attachment.server))].filter(
      (name) => !this.#instructionsExcluded.has(name),
    );
    return spans.step('instructions', () =>
      collectTurnInstructions(this.#servers, names, tokenizer, maxTokens, turnMaxTokens),
    );
  }

  /**
   * The budget step's options for this turn (its budget, model and message; the derived cache;
   * when it stops counting, see budgetGraceMs).
   */
  #composeOptions(
    turn: Turn,
    budget: ResolvedBudget,
    counting: ChosenTokenizer,
    deadline: TurnDeadline,
  ): Omit<ComposeOptions, 'renderOrder'> {
    return {
      ...budget,
      // An estimated count holds back at least its stated margin.
      safetyMargin: Math.max(budget.safetyMargin, counting.margin),
      stopAt: deadline.composeBy,
      ...(turn.model !== undefined && { model: turn.model }),
      ...(turn.message?.text !== undefined && { query: turn.message.text }),
      ...(this.#freshness && { derived: this.#freshness.derived }),
    };
  }

  /** Frees the default tokenizer. A tokenizer passed in options stays the caller's to dispose. */
  dispose(): void {
    this.#models?.dispose();
    if (this.#ownsTokenizer) this.#tokenizer.dispose();
    this.#freshness?.dispose();
    this.removeAllListeners();
  }

  // --- Internal helpers ---

  /**
   * UNKNOWN_PIPELINE or UNKNOWN_AGENT for a turn whose actor has no binding, audited like every
   * other refusal: the operator sees a mistyped or forged id in the audit, not only the caller.
   */
  #requireKnown(actor: Principal, turn: Turn): void {
    try {
      this.#policy.requireKnown(actor);
    } catch (error) {
      if (
        ContextError.isInstance(error) &&
        (error.code === 'UNKNOWN_PIPELINE' || error.code === 'UNKNOWN_AGENT')
      ) {
        const principal = typeof turn.principal === 'string' ? turn.principal : undefined;
        this.#servers.recordRefusedTurn(actor, error.code, principal);
      }
      throw error;
    }
  }

  /** The host's one tokenizer, or the one of the turn's model family (see ModelTokenizers). */
  async #turnTokenizer(turn: Turn): Promise<ChosenTokenizer> {
    if (!this.#models) {
      const tokenizer = this.#tokenizer;
      return { tokenizer, exact: tokenizer.exact ?? true, margin: tokenizer.margin ?? 0 };
    }
    const id = turn.model?.id;
    if (id !== undefined && (typeof id !== 'string' || id.length === 0)) {
      throw new ContextError('INVALID_OPTION', 'turn.model.id must be a non-empty string', {
        field: 'turn.model.id',
        value: id,
      });
    }
    return this.#models.choose(id);
  }

  #turnBudget(turn: Turn): ResolvedBudget {
    if (!turn.budget) return this.#budget;
    return { ...this.#budget, ...parseOptions(budgetOverrideSchema, turn.budget, 'turn.budget') };
  }
}

/** `step` with no read's CPU work let in before it settles (see holdLoopTurns). */
async function ahead<T>(step: () => Promise<T>): Promise<T> {
  holdLoopTurns();
  try {
    return await step();
  } finally {
    releaseLoopTurns();
  }
}

/** The trace's facts of the turn itself: who, when, how long, and what it spent. */
function turnFacts(
  turn: Turn,
  startedAt: string,
  started: number,
  maxTokens: number,
  counting: ChosenTokenizer,
  options: { readonly safetyMargin?: number },
  context: TurnContext,
): Omit<TurnFacts, 'items' | 'sessionOf'> {
  return {
    turnId: turn.turnId ?? randomTurnId(),
    pipelineId: turn.pipelineId,
    ...(turn.conversationId !== undefined && { conversationId: turn.conversationId }),
    startedAt,
    durationMs: performance.now() - started,
    budget: {
      maxTokens,
      usedTokens: context.usedTokens,
      tokenizer: counting.tokenizer.name,
      exact: counting.exact,
      margin: options.safetyMargin ?? 0,
    },
    ...(context.instructions && { instructions: context.instructions }),
  };
}

/** A turn after step 1's listing, as #provide hands it to the steps that follow. */
interface ResolvedTurn {
  readonly turn: Turn;
  readonly spans: TurnSpans;
  readonly deadline: TurnDeadline;
  /** When it started, as the trace says it (ISO 8601). */
  readonly startedAt: string;
  readonly actor: Principal;
  readonly budget: ResolvedBudget;
  readonly counting: ChosenTokenizer;
  readonly listed: TurnAttachments;
}
