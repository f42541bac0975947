import { isDeepStrictEqual } from 'node:util';
import { LRUCache } from 'lru-cache';
import type { TurnAttachments } from '../attachments/resolve-turn-attachments.js';
import type { CachedContent, ContentCache } from '../cache/content-cache.js';
import type { ListingIndex } from '../cache/listing-index.js';
import type { PinSubscriptions } from '../cache/pin-subscriptions.js';
import type { TurnAttachment } from '../fetch/turn-attachment.js';
import type { ResolvedBudget } from '../options/budget-options.js';
import type { Authorizer, Principal } from '../policy/access-request.js';
import { authorizeRead } from '../policy/authorize-read.js';
import type { ChangeTracker, History } from '../trace/change-tracker.js';
import { historyKeyOf } from '../trace/history-key.js';
import { randomTurnId } from '../trace/random-turn-id.js';
import { type TracedSession, traceServersOf } from '../trace/trace-servers.js';
import type {
  ContextBlock,
  InjectionTrace,
  InstructionsEntry,
  ModelCapabilities,
  ProvideResult,
  TraceEntry,
  Turn,
} from '../types.js';
import { type HeldTargets, keepHeld } from './keep-subscribed.js';
import { throwIfHostAborted } from './throw-if-host-aborted.js';
import type { TurnRun } from './turn-run.js';

/** What a turn answered, with everything its answer depended on. */
export interface KeptTurn {
  /** Its pins, conversation's then pipeline's, as (id, version) pairs: see PinVersions. */
  readonly pins: PinVersions;
  /** The budget it was composed within (the provider's, or the turn's own). */
  readonly budget: ResolvedBudget;
  /** Each attachment as the full turn left it: its authorization is asked again of the policy. */
  readonly attachments: readonly TurnAttachment[];
  /** What its scopes held for the pin subscriptions, reconciled again by identity. */
  readonly subscribed: HeldTargets | undefined;
  readonly model: ModelCapabilities | undefined;
  readonly query: string | undefined;
  /** The cached content of every attachment, as its peek answered it. */
  readonly contents: readonly CachedContent[];
  /** The listings' generation when the turn consulted them, and the servers it consulted. */
  readonly listingGeneration: number;
  readonly listedServers: readonly string[];
  /**
   * The conversation's change history after the turn, and its count of recorded changes; none
   * when the turn injected nothing (nothing to compare).
   */
  readonly history: History | undefined;
  readonly historyChanges: number;
  readonly maxTokens: number;
  readonly usedTokens: number;
  /** The trace's budget as the full turn reported it (its tokenizer and margin too). */
  readonly traceBudget: InjectionTrace['budget'];
  readonly blocks: readonly ContextBlock[];
  readonly entries: readonly TraceEntry[];
  /**
   * The servers' instructions the turn placed (the trace's `instructions`), and the sessions
   * opened when it started (see Freshness.sessionsOpened); none without server instructions.
   */
  readonly instructions?: readonly InstructionsEntry[];
  readonly sessionsOpened?: number;
}

interface Held extends KeptTurn {
  /** When a full turn last answered it (Date.now()). */
  readonly keptAt: number;
  /** When the first of its contents goes past the cache TTL (Date.now()). */
  readonly freshUntil: number;
  /** The cache's retirements when its contents were last seen all held and fresh. */
  retirements: number;
  /** Two full turns in a row answered it alike: it is answered again from here on. */
  readonly confirmed: boolean;
}

/**
 * How long a kept turn is answered before a full turn runs again: a full turn is what uses the
 * content and derived caches' entries (their least-recently-used order), which a kept answer skips.
 */
export const keptTurnRecencyMs = 1_000;

/**
 * Turns answered again without being run: when the same actor's turn lists the same pins (each
 * the same id at the same version), with the same model, message text and budget, and nothing
 * it depended on changed since two full turns in a row answered it alike — every cached content
 * still held and fresh, no listing refreshed or invalidated, the conversation's change history
 * untouched by other turns — its blocks and trace entries are answered again: no resolution,
 * authorization, fetch, conversion, budget or rendering, O(1) per attachment.
 *
 * It wraps the turn from outside: it is handed the turn's listed pins and the steps that follow,
 * and keeps what the turn states it was made from (TurnInputs). Its checks are of versions and
 * counters — pin versions, the content cache's retirements, the listings' generation, the
 * sessions opened, the conversation's history — never of contents, and the policy is asked
 * again for each attachment's read: a change anywhere it depends on makes the next turn a full
 * one. Whether telemetry records the turn or the policy is the library's own changes nothing
 * here. Not kept: turns with a failure, a skill, a message attachment, a pin without a version,
 * a read that waited, a stale serve or a cache bypass.
 */
export class KeptTurns {
  readonly #turns: LRUCache<string, Held>;
  readonly #cache: ContentCache;
  readonly #listings: ListingIndex;
  readonly #changes: ChangeTracker;
  readonly #sessionsOpened: () => number;
  readonly #subscriptions: PinSubscriptions;
  readonly #policy: Authorizer;

  constructor(
    parts: {
      cache: ContentCache;
      listings: ListingIndex;
      changes: ChangeTracker;
      /** Sessions opened so far (see Freshness.sessionsOpened). */
      sessionsOpened: () => number;
      subscriptions: PinSubscriptions;
      policy: Authorizer;
    },
    bounds: KeptTurnBounds,
  ) {
    // Bounded by count and by bytes: a kept turn holds its blocks, which the derived cache may
    // since have let go (a 200k-token context is ~0.8 MB of text).
    this.#turns = new LRUCache({ max: bounds.maxTurns, maxSize: bounds.maxBytes, sizeCalculation: bytesOf });
    this.#cache = parts.cache;
    this.#listings = parts.listings;
    this.#changes = parts.changes;
    this.#sessionsOpened = parts.sessionsOpened;
    this.#subscriptions = parts.subscriptions;
    this.#policy = parts.policy;
  }

  /**
   * The turn's answer: the kept one, in a trace of this turn, while nothing it depends on changed;
   * else `run`'s (steps 2–7), offered to be kept.
   */
  async provide(
    turn: Turn,
    actor: Principal,
    listed: TurnAttachments,
    budget: ResolvedBudget,
    started: { readonly startedAt: string; readonly at: number },
    run: () => Promise<TurnRun>,
    sessionOf: (server: string) => TracedSession | undefined,
  ): Promise<ProvideResult> {
    const kept = this.answer(turn, actor, listed, budget);
    if (!kept) {
      const ran = await run();
      this.offer(turn, actor, budget, ran);
      return ran.result;
    }
    keepHeld(this.#subscriptions, turn, kept.subscribed);
    throwIfHostAborted(turn);
    // Asked again, not kept: the same content may now come from a session of another era.
    const servers = traceServersOf(kept.entries, sessionOf);
    const trace: InjectionTrace = {
      turnId: turn.turnId ?? randomTurnId(),
      pipelineId: turn.pipelineId,
      ...(turn.conversationId !== undefined && { conversationId: turn.conversationId }),
      startedAt: started.startedAt,
      durationMs: performance.now() - started.at,
      budget: kept.traceBudget,
      entries: kept.entries,
      ...(kept.instructions && { instructions: kept.instructions }),
      ...(servers && { servers }),
    };
    return { blocks: kept.blocks, trace };
  }

  /** Turns held (confirmed or not). */
  get size(): number {
    return this.#turns.size;
  }

  /** What the turns held take, as estimated for the bound (see bytesOf). */
  get bytesHeld(): number {
    return this.#turns.calculatedSize;
  }

  /** The kept answer to this turn, if it still stands; counts its cache hits. */
  answer(
    turn: Turn,
    actor: Principal,
    listed: TurnAttachments,
    budget: ResolvedBudget,
  ): KeptTurn | undefined {
    if (!mayKeep(turn, listed)) return undefined;
    const held = this.#turns.get(keyOf(turn, actor));
    const now = Date.now();
    if (!held?.confirmed || now - held.keptAt >= keptTurnRecencyMs || now >= held.freshUntil)
      return undefined;
    if (held.query !== turn.message?.text || !isDeepStrictEqual(held.model, turn.model)) return undefined;
    if (!samePins(held.pins, listed) || !sameBudget(held.budget, budget)) return undefined;
    // The policy may decide otherwise now (a host's own may change its decisions): asked again, unaudited.
    if (!sameAuthorization(this.#policy, actor, held.attachments)) return undefined;
    // As the full turn's lookups would: a listing past its TTL is refreshed in the background.
    for (const server of held.listedServers) this.#listings.keepFresh(server, actor, turn.principal);
    if (held.listingGeneration !== this.#listings.generation) return undefined;
    // A new session may have brought other instructions.
    if (held.sessionsOpened !== undefined && held.sessionsOpened !== this.#sessionsOpened()) return undefined;
    if (held.history) {
      const history = this.#changes.historyOf(historyKeyOf(turn));
      if (history !== held.history || history.changes !== held.historyChanges) return undefined;
    }
    // Each content is looked at only when some entry of the cache was retired since: a kept
    // turn touches none of its attachments' objects while nothing changed.
    const retirements = this.#cache.retirements;
    if (retirements !== held.retirements) {
      if (!this.#cache.stillFresh(held.contents)) return undefined;
      held.retirements = retirements;
    }
    this.#cache.countHits(held.contents.length);
    return held;
  }

  /**
   * Offers a full turn's outcome: kept when every attachment was a cache hit answered at once (or
   * skipped by its listing) and nothing changed while the turn ran; answered again once a second
   * full turn answers it alike.
   */
  offer(turn: Turn, actor: Principal, budget: ResolvedBudget, { result, inputs }: TurnRun): void {
    if (!mayKeep(turn, inputs.listed) || turn.signal?.aborted) return;
    const key = keyOf(turn, actor);
    const pins = pinVersionsOf(inputs.listed);
    if (!pins || !answeredAtOnce(result, inputs) || inputs.listingGeneration !== this.#listings.generation) {
      this.#turns.delete(key);
      return;
    }
    if (!this.#cache.stillFresh(inputs.contents)) {
      this.#turns.delete(key);
      return;
    }
    const { blocks, trace } = result;
    // The history its trace compared with: none for a turn that injected nothing (that turn made
    // none, and a kept one must not make one either: the tracker's bound would let real
    // conversations go for turns of nothing).
    const history = injectedAny(trace.entries) ? this.#changes.historyOf(historyKeyOf(turn)) : undefined;
    const previous = this.#turns.get(key);
    const confirmed =
      previous !== undefined &&
      previous.history === history &&
      previous.historyChanges === (history?.changes ?? 0) &&
      isDeepStrictEqual(previous.model, turn.model) &&
      previous.query === turn.message?.text &&
      previous.listingGeneration === inputs.listingGeneration &&
      sameBudget(previous.budget, budget) &&
      previous.usedTokens === trace.budget.usedTokens &&
      samePins(previous.pins, inputs.listed) &&
      sameItems(previous.contents, inputs.contents) &&
      previous.sessionsOpened === inputs.sessionsOpened &&
      isDeepStrictEqual(previous.instructions, trace.instructions) &&
      isDeepStrictEqual(previous.blocks, blocks) &&
      isDeepStrictEqual(previous.entries, trace.entries);
    this.#turns.set(key, {
      pins,
      budget,
      attachments: inputs.attachments,
      subscribed: inputs.subscribed,
      model: turn.model,
      query: turn.message?.text,
      contents: inputs.contents,
      listingGeneration: inputs.listingGeneration,
      listedServers: inputs.listedServers,
      history,
      historyChanges: history?.changes ?? 0,
      maxTokens: trace.budget.maxTokens,
      usedTokens: trace.budget.usedTokens,
      traceBudget: trace.budget,
      // Frozen arrays (every turn's are), answered again as they are.
      blocks,
      entries: trace.entries,
      ...(trace.instructions && { instructions: trace.instructions }),
      ...(inputs.sessionsOpened !== undefined && { sessionsOpened: inputs.sessionsOpened }),
      keptAt: Date.now(),
      freshUntil: freshUntilOf(inputs.contents, this.#cache),
      retirements: this.#cache.retirements,
      confirmed,
    });
  }
}

/** How many turns are kept, and the bytes they may hold together. */
export interface KeptTurnBounds {
  readonly maxTurns: number;
  readonly maxBytes: number;
}

// --- Internal helpers ---

// What a kept turn holds beyond its blocks: its arrays and records (an estimate, per attachment).
const bytesPerAttachment = 64;
const bytesPerTurn = 1024;

/** When the first of `contents` stops being fresh (each by its own hint or the cache's TTL). */
function freshUntilOf(contents: readonly CachedContent[], cache: ContentCache): number {
  let first = Number.POSITIVE_INFINITY;
  for (const content of contents) first = Math.min(first, cache.freshUntil(content));
  return first;
}

/** A kept turn's size for the bound: its blocks' text and media (UTF-16, two bytes a unit), and its arrays. */
function bytesOf(held: Held): number {
  let bytes = bytesPerTurn + bytesPerAttachment * held.attachments.length;
  for (const block of held.blocks) {
    bytes += 2 * block.text.length;
    if (block.kind === 'resource') for (const part of block.parts ?? []) bytes += 2 * part.data.length;
  }
  return bytes;
}

/**
 * Turns that may be kept: no cache bypass, no message attachment (a turn's own, parsed and
 * resolved anew each turn). A budget of the turn's own is kept with the turn and compared.
 */
function mayKeep(turn: Turn, listed: TurnAttachments): boolean {
  return turn.bypassCache !== true && listed.message.length === 0;
}

/**
 * The turn's pins as (id, version) pairs, the conversation's then the pipeline's: what tells the
 * same pins in the next turn (a version is new on every write of a pin, in every process; see
 * Attachment.version). None when a pin has no version (a host's own store may not set one).
 */
export interface PinVersions {
  readonly conversation: number;
  readonly ids: readonly string[];
  readonly versions: readonly string[];
}

function pinVersionsOf(listed: TurnAttachments): PinVersions | undefined {
  const ids: string[] = [];
  const versions: string[] = [];
  for (const scope of [listed.conversation, listed.pipeline])
    for (const pin of scope) {
      if (pin.version === undefined) return undefined;
      ids.push(pin.id);
      versions.push(pin.version);
    }
  return { conversation: listed.conversation.length, ids, versions };
}

/** Whether `listed` holds the very pins of `kept`, each at the same version, in the same order. */
function samePins(kept: PinVersions, listed: TurnAttachments): boolean {
  const { conversation, pipeline } = listed;
  if (conversation.length !== kept.conversation || conversation.length + pipeline.length !== kept.ids.length)
    return false;
  let index = 0;
  for (const scope of [conversation, pipeline])
    for (const pin of scope) {
      if (pin.id !== kept.ids[index] || pin.version === undefined || pin.version !== kept.versions[index])
        return false;
      index++;
    }
  return true;
}

/** The provider's budget is one object; a turn's own is a new one each turn, compared field by field. */
function sameBudget(kept: ResolvedBudget, now: ResolvedBudget): boolean {
  return kept === now || isDeepStrictEqual(kept, now);
}

/**
 * Every attachment ready from a cache hit answered at once (nothing read, waited for or
 * converted), or skipped by its listing, and none a skill; one cached content per ready
 * attachment; no server's instructions failed.
 */
function answeredAtOnce(result: ProvideResult, inputs: TurnRun['inputs']): boolean {
  if (result.trace.instructions?.some((entry) => entry.status === 'error')) return false;
  // An attachment the budget step failed on is tried again, not answered again.
  if (result.trace.entries.some((entry) => entry.status === 'error')) return false;
  let ready = 0;
  for (const { attachment, fate } of inputs.attachments) {
    if (attachment.skill) return false;
    if (fate.kind === 'skipped') continue;
    if (fate.kind !== 'ready' || fate.cache !== 'hit' || fate.durationMs !== 0) return false;
    if (fate.staleError !== undefined || fate.sharedCache !== undefined) return false;
    ready++;
  }
  return ready === inputs.contents.length;
}

/** Whether the policy still allows each attachment's read, with the same limits. */
function sameAuthorization(
  policy: Authorizer,
  actor: Principal,
  attachments: readonly TurnAttachment[],
): boolean {
  for (const { attachment, access } of attachments) {
    const now = authorizeRead(policy, actor, attachment);
    if (!now.allowed || !access.allowed) return false;
    if (now.limits !== access.limits && !isDeepStrictEqual(now.limits, access.limits)) return false;
  }
  return true;
}

/** Whose turn it is: every part length-prefixed, so no two actors share a key. */
function keyOf(turn: Turn, actor: Principal): string {
  const parts = [actor.pipelineId, actor.agentId, turn.conversationId, turn.principal];
  let key = '';
  for (const part of parts) key += part === undefined ? '-;' : `${part.length}:${part};`;
  return key;
}

/** Whether any entry was injected (compared with the history: it has a `change`). */
function injectedAny(entries: readonly TraceEntry[]): boolean {
  for (const entry of entries) if (entry.change !== undefined) return true;
  return false;
}

function sameItems<Item>(kept: readonly Item[], now: readonly Item[]): boolean {
  if (kept.length !== now.length) return false;
  for (let index = 0; index < kept.length; index++) if (kept[index] !== now[index]) return false;
  return true;
}
