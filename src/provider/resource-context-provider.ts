import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { EventEmitter } from 'eventemitter3';
import { parseMessageAttachment } from '../attachments/attachment-schema.js';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import { resolveTargetUri } from '../attachments/resolve-target-uri.js';
import { type ResolvedAttachment, resolveTurnAttachments } from '../attachments/resolve-turn-attachments.js';
import { createTiktokenTokenizer } from '../budget/tiktoken-tokenizer.js';
import type { Tokenizer } from '../budget/tokenizer.js';
import { ChangeTracker } from '../cache/change-tracker.js';
import type { CacheEvents, CacheMetrics, ContentCache, ContentCacheOptions } from '../cache/content-cache.js';
import { createFreshness, type Freshness } from '../cache/create-freshness.js';
import type { SubscriptionFailure } from '../cache/pin-subscriptions.js';
import type { ConverterRegistry } from '../convert/converter-registry.js';
import { ContextError } from '../errors.js';
import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import { parseOptions } from '../options/parse-options.js';
import type { AccessPolicy } from '../policy/access-policy.js';
import type { Attachment, BudgetOptions, InjectionTrace, ProvideResult, Turn } from '../types.js';
import {
  addInstructionsBlock,
  collectTurnInstructions,
  withoutInstructions,
} from './add-server-instructions.js';
import { composeContext } from './compose-context.js';
import { fetchAttachment, type PreparedAttachment } from './fetch-attachment.js';
import { budgetOverrideSchema, providerOptionsSchema, type ResolvedBudget } from './provider-options.js';
import { toTraceEntry } from './to-trace-entry.js';

export interface ResourceContextProviderOptions {
  readonly servers: McpServerRegistry;
  readonly attachments: AttachmentStore;
  readonly policy: AccessPolicy;
  readonly budget: BudgetOptions;
  /** Defaults to tiktoken `o200k_base`, shared per process. */
  readonly tokenizer?: Tokenizer;
  /**
   * The `initialize` instructions of the servers a turn injects from, as a framed section after
   * the preamble that ranks below the host's own instructions; counted in the turn's budget.
   * Default `{ maxTokens: 512 }`; `false` leaves them out.
   */
  readonly serverInstructions?: { readonly maxTokens: number } | false;
  /** Converters by media type: `createConverterRegistry([...yours])`; default: the built-in ones. */
  readonly converters?: ConverterRegistry;
  readonly readTimeoutMs?: number;
  readonly turnDeadlineMs?: number;
  /**
   * The content cache: options for the provider's own, or a shared instance (several providers
   * over one registry), or `false` to read every attachment every turn.
   */
  readonly cache?: ContentCache | ContentCacheOptions | false;
}

export type ProviderEvents = CacheEvents & {
  /** A pinned resource could not be subscribed to; it is still re-read when its TTL runs out. */
  'subscription-failed': [failure: SubscriptionFailure];
  /** Once per turn, after the context is composed. */
  injected: [trace: InjectionTrace];
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
  readonly #turnDeadlineMs: number;
  /** Caches and subscriptions; absent with `cache: false`. */
  readonly #freshness: Freshness | undefined;
  readonly #changes = new ChangeTracker();

  constructor(options: ResourceContextProviderOptions) {
    super();
    const parsed = parseOptions(providerOptionsSchema, options, 'options');
    this.#servers = options.servers;
    this.#attachments = options.attachments;
    this.#policy = options.policy;
    this.#budget = parsed.budget;
    this.#readTimeoutMs = parsed.readTimeoutMs;
    this.#converters = options.converters;
    this.#instructionsMaxTokens =
      parsed.serverInstructions === false ? undefined : parsed.serverInstructions.maxTokens;
    this.#turnDeadlineMs = parsed.turnDeadlineMs;
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

  /**
   * Cache hits, misses, stale serves, evictions, bytes held, invalidations, reads in flight, and
   * the bytes the derived cache holds (conversions, token arrays); undefined without a cache.
   */
  get metrics(): (CacheMetrics & { readonly derivedBytesHeld: number }) | undefined {
    const freshness = this.#freshness;
    return freshness && { ...freshness.cache.metrics, derivedBytesHeld: freshness.derived.bytesHeld };
  }

  get tokenizer(): Tokenizer {
    return this.#tokenizer;
  }

  async provide(turn: Turn): Promise<ProvideResult> {
    const started = performance.now();
    const startedAt = new Date().toISOString();
    const budget = this.#turnBudget(turn);
    const messageAttachments = (turn.message?.attachments ?? []).map((attachment, index) => {
      const parsed = parseMessageAttachment(attachment, index);
      resolveTargetUri(parsed);
      return parsed;
    });

    // 1 resolve
    const [pipelinePins, conversationPins] = await Promise.all([
      this.#attachments.list({ pipelineId: turn.pipelineId }),
      turn.conversationId ? this.#attachments.list({ conversationId: turn.conversationId }) : [],
    ]);
    const resolved = resolveTurnAttachments({
      pipeline: pipelinePins,
      conversation: conversationPins,
      message: messageAttachments,
    });
    this.#keepSubscribed(turn, pipelinePins, conversationPins);

    // 2 authorize, 3 fetch, 4 convert: concurrently per attachment, bounded by the turn deadline.
    const deadline = AbortSignal.timeout(this.#turnDeadlineMs);
    const signal = turn.signal ? AbortSignal.any([turn.signal, deadline]) : deadline;
    // Every attachment of the turn waits on these signals: one listener each is expected.
    setMaxListeners(0, deadline, signal);
    const prepared = await Promise.all(
      resolved.map((attachment) => this.#authorizeAndFetch(attachment, turn, signal, deadline)),
    );
    if (turn.signal?.aborted) {
      throw new ContextError('ABORTED', 'the turn was aborted by the host', { value: turn.turnId });
    }

    // 5 budget, 6 render (server instructions, when on, are framed first and paid for first)
    const ready = rankByAnnotations(prepared.filter((item) => item.composable !== undefined));
    let instructions =
      this.#instructionsMaxTokens === undefined
        ? undefined
        : await collectTurnInstructions(
            this.#servers,
            [...new Set(ready.map((item) => item.attachment.server))],
            this.#tokenizer,
            this.#instructionsMaxTokens,
            budget.maxTokens,
          );
    const composed = await composeContext(
      ready.map((item) => item.composable as NonNullable<PreparedAttachment['composable']>),
      this.#tokenizer,
      {
        ...budget,
        maxTokens: budget.maxTokens - (instructions?.tokens ?? 0),
        renderOrder: renderOrder(ready.map((item) => item.attachment)),
        ...(turn.model !== undefined && { model: turn.model }),
        ...(turn.message?.text !== undefined && { query: turn.message.text }),
        ...(this.#freshness && { derived: this.#freshness.derived }),
      },
    );
    if (instructions && composed.blocks.length === 0) instructions = withoutInstructions(instructions);
    // Blocks meet at "\n\n" before "<": no token spans a join, so the counts add up exactly.
    const blocks = instructions ? addInstructionsBlock(composed.blocks, instructions) : composed.blocks;
    const usedTokens = composed.usedTokens + (instructions?.tokens ?? 0);

    // 7 trace
    const composedByAttachment = new Map(ready.map((item, index) => [item, composed.attachments[index]]));
    const history = turn.conversationId ?? `pipeline:${turn.pipelineId}`;
    const changeOf = (item: PreparedAttachment) => {
      const decision = composedByAttachment.get(item)?.decision;
      if (!item.converted || !decision || decision.fate === 'omitted') return undefined;
      return this.#changes.observe(
        history,
        item.attachment.server,
        item.attachment.uri,
        item.converted.sha256,
      );
    };
    const trace: InjectionTrace = {
      turnId: turn.turnId ?? randomUUID(),
      pipelineId: turn.pipelineId,
      ...(turn.conversationId !== undefined && { conversationId: turn.conversationId }),
      startedAt,
      durationMs: performance.now() - started,
      budget: { maxTokens: budget.maxTokens, usedTokens },
      entries: prepared.map((item) => toTraceEntry(item, composedByAttachment.get(item), changeOf(item))),
      ...(instructions && instructions.entries.length > 0 && { instructions: instructions.entries }),
    };
    this.emit('injected', trace);
    return { blocks, trace };
  }

  /** Frees the default tokenizer. A tokenizer passed in options stays the caller's to dispose. */
  dispose(): void {
    if (this.#ownsTokenizer) this.#tokenizer.dispose();
    this.#freshness?.dispose();
    this.removeAllListeners();
  }

  // --- Internal helpers ---

  /** Pins (not one-off message attachments) stay subscribed while some scope holds them. */
  #keepSubscribed(
    turn: Turn,
    pipelinePins: readonly Attachment[],
    conversationPins: readonly Attachment[],
  ): void {
    const subscriptions = this.#freshness?.subscriptions;
    if (!subscriptions) return;
    const allowed = (pins: readonly Attachment[]) =>
      pins.flatMap((pin) => {
        try {
          const uri = resolveTargetUri(pin);
          const decision = this.#policy.authorize({
            ...actorOf(turn),
            server: pin.server,
            operation: 'read',
            uri,
          });
          return decision.allowed ? [{ server: pin.server, uri }] : [];
        } catch {
          return [];
        }
      });
    subscriptions.reconcile(`pipeline:${turn.pipelineId}`, allowed(pipelinePins));
    if (turn.conversationId)
      subscriptions.reconcile(`conversation:${turn.conversationId}`, allowed(conversationPins));
  }

  #turnBudget(turn: Turn): ResolvedBudget {
    if (!turn.budget) return this.#budget;
    return { ...this.#budget, ...parseOptions(budgetOverrideSchema, turn.budget, 'turn.budget') };
  }

  async #authorizeAndFetch(
    attachment: ResolvedAttachment,
    turn: Turn,
    signal: AbortSignal,
    deadline: AbortSignal,
  ): Promise<PreparedAttachment> {
    if (attachment.error)
      return { attachment, status: 'error', error: attachment.error, cache: 'bypass', durationMs: 0 };
    const actor = actorOf(turn);
    const decision = this.#policy.authorize({
      ...actor,
      server: attachment.server,
      operation: 'read',
      uri: attachment.uri,
    });
    if (!decision.allowed) {
      const error = new ContextError('POLICY_DENIED', decision.reason, { server: attachment.server });
      return { attachment, status: 'denied', error, cache: 'bypass', durationMs: 0 };
    }
    const [prepared, annotationPriority] = await Promise.all([
      fetchAttachment(attachment, {
        actor,
        servers: this.#servers,
        cache: this.#freshness?.cache,
        bypassCache: turn.bypassCache === true,
        ...(this.#converters && { converters: this.#converters }),
        ...(this.#freshness && { derived: this.#freshness.derived }),
        signal,
        deadline,
        readTimeoutMs: this.#readTimeoutMs,
        limits: decision.limits,
      }),
      this.#freshness?.listings.priorityOf(attachment.server, attachment.uri, actor, signal),
    ]);
    return annotationPriority === undefined ? prepared : { ...prepared, annotationPriority };
  }
}

// --- Module helpers ---

const rankScopeOrder = { message: 0, conversation: 1, pipeline: 2 } as const;

/**
 * Budget rank: scope, then the attachment's own priority (the resolve order), then the server's
 * listed `annotations.priority` (absent counts as neutral 0.5), known only after listing.
 */
function rankByAnnotations(items: readonly PreparedAttachment[]): PreparedAttachment[] {
  return [...items].sort(
    (a, b) =>
      rankScopeOrder[a.attachment.scope] - rankScopeOrder[b.attachment.scope] ||
      b.attachment.priority - a.attachment.priority ||
      (b.annotationPriority ?? 0.5) - (a.annotationPriority ?? 0.5),
  );
}

/** Who a turn acts as: its pipeline, and its agent where the host has one. */
function actorOf(turn: Turn): { pipelineId: string; agentId?: string } {
  return { pipelineId: turn.pipelineId, ...(turn.agentId !== undefined && { agentId: turn.agentId }) };
}

const renderScopeOrder = { pipeline: 0, conversation: 1, message: 2 } as const;

/**
 * Rendering puts the stablest scope first (pipeline, then conversation, then message) so an
 * unchanged set of pins renders a byte-identical prefix across turns; within a scope, rank order.
 */
function renderOrder(attachments: readonly ResolvedAttachment[]): number[] {
  return attachments
    .map((attachment, index) => ({ index, scope: renderScopeOrder[attachment.scope] }))
    .sort((a, b) => a.scope - b.scope || a.index - b.index)
    .map(({ index }) => index);
}
