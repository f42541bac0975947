import { LRUCache } from 'lru-cache';
import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import { boundedByCount } from '../options/bounded-by-count.js';

export interface PinnedTarget {
  readonly server: string;
  readonly uri: string;
}

export interface SubscriptionFailure {
  readonly server: string;
  readonly uri: string;
  readonly error: unknown;
}

/**
 * Keeps one `resources/subscribe` per (server, uri) that some pin uses, on servers that offer
 * `resources.subscribe` on a session that outlives a request (MCP spec, server/resources
 * "Subscriptions"; not a stateless Streamable HTTP server, see pinUpdatesOf). Holders are pin scopes
 * (a pipeline, a conversation): a URI is subscribed when its first holder appears and
 * unsubscribed when its last one goes, and re-subscribed when its server's session reopens.
 */
interface HeldScope {
  readonly targets: readonly PinnedTarget[];
  /** The targets' keys, but those of servers whose open session brings no updates. */
  readonly keys: ReadonlySet<string>;
  /** Set when some target was left out for its server: the sessions' epoch it was decided in. */
  readonly leftOutIn?: number;
}

export class PinSubscriptions {
  readonly #servers: McpServerRegistry;
  readonly #onFailure: (failure: SubscriptionFailure) => void;
  /**
   * scope → the targets it was last reconciled with (in the order given) and their keys. Bounded:
   * a service sees conversations without end, and each one that pins anything is a scope. The
   * least recently reconciled scope past the bound lets go of what it held (unsubscribed when it
   * was the last holder); its next turn reconciles it again.
   */
  readonly #heldByScope: LRUCache<string, HeldScope>;
  /**
   * Lists reconciled with every target left out (servers whose sessions bring no updates), with
   * the sessions' epoch they were decided in: such a scope holds nothing, so it is not kept by
   * scope (a service's conversations on stateless servers would each cost an entry for nothing).
   * Weak: a list is remembered while the turn that got it back keeps it (see keepHeld).
   */
  readonly #allLeftOut = new WeakMap<readonly PinnedTarget[], number>();
  /** key → number of scopes holding it. */
  readonly #holders = new Map<string, number>();
  readonly #subscribed = new Set<string>();
  readonly #subscribing = new Set<string>();
  readonly #supportsSubscribe = new Map<string, Promise<boolean>>();
  readonly #pending = new Set<Promise<void>>();
  readonly #detach: () => void;
  /** Raised when a session opens or closes: what a server's session brings may have changed. */
  #sessionsEpoch = 0;

  constructor(
    servers: McpServerRegistry,
    onFailure: (failure: SubscriptionFailure) => void = () => {},
    maxScopes = 10_000,
  ) {
    this.#servers = servers;
    this.#onFailure = onFailure;
    this.#heldByScope = new LRUCache<string, HeldScope>({
      ...boundedByCount(maxScopes),
      dispose: (held, _scope, reason) => {
        if (reason === 'evict') for (const key of held.keys) this.#release(key);
      },
    });
    const onOpened = (event: { server: string }) => {
      this.#sessionsEpoch++;
      // What an earlier probe answered (or failed to: the server was unreachable) says nothing of
      // this session: ask it again.
      this.#supportsSubscribe.delete(event.server);
      this.#resubscribe(event.server);
    };
    const onClosed = (event: { server: string }) => {
      this.#sessionsEpoch++;
      // A new session may offer other capabilities, and holds no subscriptions of ours.
      this.#supportsSubscribe.delete(event.server);
      for (const key of this.#subscribed)
        if (splitKey(key).server === event.server) this.#subscribed.delete(key);
    };
    servers.on('session-opened', onOpened);
    servers.on('session-closed', onClosed);
    this.#detach = () => {
      servers.off('session-opened', onOpened);
      servers.off('session-closed', onClosed);
    };
  }

  /**
   * Sets what one scope's pins are now; subscribes what is new, unsubscribes what nobody holds.
   * Answers the list the scope holds now: passed again, it is recognized by identity alone.
   * A target whose server's open session brings no updates (pinUpdates 'ttl': no
   * `resources.subscribe`, or a stateless server) is not held: nothing would be sent for it, and
   * a service's scopes on such servers would each keep their keys for nothing. A scope that left
   * one out is decided again once some session opened or closed since.
   */
  reconcile(scope: string, targets: readonly PinnedTarget[]): readonly PinnedTarget[] {
    const held = this.#heldByScope.get(scope);
    // A list whose every target was left out, decided since the last session opened or closed.
    if (!held && this.#allLeftOut.get(targets) === this.#sessionsEpoch) return targets;
    // Every turn reconciles its scopes; pins rarely change between turns: then nothing to do.
    const decided = held?.leftOutIn === undefined || held.leftOutIn === this.#sessionsEpoch;
    if (decided && held?.targets === targets) return targets;
    if (decided && sameTargets(held?.targets ?? noTargets, targets)) return held?.targets ?? noTargets;
    const next = new Set<string>();
    let leftOut = false;
    for (const target of targets) {
      if (this.#servers.pinUpdatesOf(target.server) === 'ttl') leftOut = true;
      else next.add(joinKey(target.server, target.uri));
    }
    const previous: ReadonlySet<string> = held?.keys ?? noKeys;
    for (const key of next) if (!previous.has(key)) this.#retain(key);
    for (const key of previous) if (!next.has(key)) this.#release(key);
    if (next.size === 0) {
      this.#heldByScope.delete(scope);
      if (!leftOut) return noTargets;
      // The scope holds nothing: only its list is remembered, for as long as its caller keeps it.
      const listed = Object.freeze([...targets]);
      this.#allLeftOut.set(listed, this.#sessionsEpoch);
      return listed;
    }
    const kept = Object.freeze([...targets]);
    this.#heldByScope.set(scope, {
      targets: kept,
      keys: next,
      ...(leftOut && { leftOutIn: this.#sessionsEpoch }),
    });
    return kept;
  }

  /** (server, uri) pairs some scope holds now (subscribed, or to be). */
  get heldTargets(): number {
    return this.#holders.size;
  }

  /** Scopes holding pins now (at most maxScopes). */
  get scopes(): number {
    return this.#heldByScope.size;
  }

  /** (server, uri) pairs currently subscribed. */
  get subscribed(): PinnedTarget[] {
    return [...this.#subscribed].map(splitKey);
  }

  /** Resolves when every subscribe/unsubscribe sent so far has been answered. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  dispose(): void {
    this.#detach();
  }

  // --- Internal helpers ---

  #retain(key: string): void {
    const count = (this.#holders.get(key) ?? 0) + 1;
    this.#holders.set(key, count);
    if (count === 1) this.#track(this.#subscribe(key));
  }

  #release(key: string): void {
    const count = (this.#holders.get(key) ?? 0) - 1;
    if (count > 0) {
      this.#holders.set(key, count);
      return;
    }
    this.#holders.delete(key);
    if (this.#subscribed.delete(key)) {
      const { server, uri } = splitKey(key);
      this.#track(
        this.#servers
          .unsubscribeResource(server, uri)
          .catch((error: unknown) => this.#onFailure({ server, uri, error })),
      );
    }
  }

  async #subscribe(key: string): Promise<void> {
    const { server, uri } = splitKey(key);
    if (this.#subscribing.has(key)) return;
    this.#subscribing.add(key);
    try {
      if (!(await this.#offersSubscribe(server)) || this.#subscribed.has(key)) return;
      await this.#servers.subscribeResource(server, uri);
      // Released while the request was out: take it back.
      if (!this.#holders.has(key)) await this.#servers.unsubscribeResource(server, uri);
      else this.#subscribed.add(key);
    } catch (error) {
      this.#onFailure({ server, uri, error });
    } finally {
      this.#subscribing.delete(key);
    }
  }

  #offersSubscribe(server: string): Promise<boolean> {
    let answer = this.#supportsSubscribe.get(server);
    if (!answer) {
      // A server that cannot bring updates (no resources.subscribe, or stateless) is asked nothing:
      // its pins are kept fresh by their TTL (the trace's servers section says `pinUpdates: 'ttl'`).
      answer = this.#servers.pinUpdates(server).then(
        (updates) => updates === 'notifications',
        () => false,
      );
      this.#supportsSubscribe.set(server, answer);
    }
    return answer;
  }

  #resubscribe(server: string): void {
    for (const key of this.#holders.keys()) {
      if (splitKey(key).server === server && !this.#subscribed.has(key)) this.#track(this.#subscribe(key));
    }
  }

  #track(work: Promise<void>): void {
    this.#pending.add(work);
    void work.finally(() => this.#pending.delete(work));
  }
}

// --- Module helpers ---

const noTargets: readonly PinnedTarget[] = Object.freeze([]);
// Never added to: a held scope's keys are built once and only read after.
const noKeys: ReadonlySet<string> = new Set<string>();

function sameTargets(first: readonly PinnedTarget[], second: readonly PinnedTarget[]): boolean {
  if (first.length !== second.length) return false;
  for (let index = 0; index < first.length; index++) {
    const a = first[index];
    const b = second[index];
    if (a?.server !== b?.server || a?.uri !== b?.uri) return false;
  }
  return true;
}

function joinKey(server: string, uri: string): string {
  return `${server}\u0000${uri}`;
}

function splitKey(key: string): PinnedTarget {
  const index = key.indexOf('\u0000');
  return { server: key.slice(0, index), uri: key.slice(index + 1) };
}
