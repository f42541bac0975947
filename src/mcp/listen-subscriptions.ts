import type { Client as ModernClient } from '@modelcontextprotocol/client';
import { RpcError, rpcErrorCodes } from './rpc-error.js';

type Subscription = Awaited<ReturnType<ModernClient['listen']>>;

interface Listening {
  readonly subscription: Subscription;
  readonly requested: ReadonlySet<string>;
  /** The URIs the server's acknowledgement names (`honoredFilter.resourceSubscriptions`). */
  readonly honored: ReadonlySet<string>;
}

// A dropped stream is listened again after this, doubled per failure in a row up to the cap,
// each wait drawn between half and all of it (MCP 2026-07-28: never re-poll without backoff and jitter).
const firstRetryMs = 250;
const maxRetryMs = 30_000;

/**
 * A modern session's `resources/subscribe` (MCP 2026-07-28 has none): one `subscriptions/listen`
 * per session, whose filter is every URI subscribed through it (the pin subscriptions subscribe
 * each pinned URI once, however many conversations pin it) and the list changes. Each change of
 * the set listens anew (changes made in one tick go out as one), the new stream acknowledged
 * before the old one closes. A URI the acknowledgement leaves out is refused: its pins stay
 * fresh by their TTL. A stream the server or the network drops is listened again after a
 * backoff with jitter. Notifications on a stream reach the session's handlers (the SDK routes
 * them by subscription id).
 */
export class ListenSubscriptions {
  readonly #client: ModernClient;
  readonly #uris = new Set<string>();
  #current: Listening | undefined;
  #chain: Promise<void> = Promise.resolve();
  #scheduled: Promise<void> | undefined;
  #failures = 0;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  readonly #ackTimeoutMs: number | undefined;

  /**
   * `ackTimeoutMs`: how long a listen waits for the server's acknowledgement (the session's
   * request timeout; the SDK's own default is a minute, during which no other listen goes out).
   */
  constructor(client: ModernClient, ackTimeoutMs?: number) {
    this.#client = client;
    this.#ackTimeoutMs = ackTimeoutMs;
  }

  /** Adds `uri` to the session's listen; rejects when the server does not acknowledge it. */
  async subscribe(uri: string): Promise<void> {
    this.#uris.add(uri);
    await this.#sync();
    if (!this.#current?.honored.has(uri)) {
      // Not asked again in the listens that follow (the server said no); a new session asks afresh.
      this.#uris.delete(uri);
      throw new RpcError(
        rpcErrorCodes.invalidParams,
        `the server's subscriptions/listen acknowledgement left out ${uri}: its pins are refreshed by their TTL`,
      );
    }
  }

  async unsubscribe(uri: string): Promise<void> {
    this.#uris.delete(uri);
    await this.#sync();
  }

  /** The URIs the open stream's acknowledgement names. */
  get honored(): readonly string[] {
    return [...(this.#current?.honored ?? [])];
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    const current = this.#current;
    this.#current = undefined;
    await current?.subscription.close();
  }

  // --- Internal helpers ---

  /** One listen for what was asked within this tick, after any listen already under way. */
  #sync(): Promise<void> {
    this.#scheduled ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      this.#scheduled = undefined;
      const next = this.#chain.then(
        () => this.#listen(),
        () => this.#listen(),
      );
      this.#chain = next;
      return next;
    });
    return this.#scheduled;
  }

  async #listen(): Promise<void> {
    if (this.#closed) return;
    const previous = this.#current;
    const wanted = new Set(this.#uris);
    if (previous && sameSet(previous.requested, wanted)) return;
    if (wanted.size === 0) {
      this.#current = undefined;
      await previous?.subscription.close();
      return;
    }
    const subscription = await this.#client.listen(
      { resourceSubscriptions: [...wanted], resourcesListChanged: true, promptsListChanged: true },
      this.#ackTimeoutMs === undefined ? undefined : { timeout: this.#ackTimeoutMs },
    );
    if (this.#closed) {
      await subscription.close();
      return;
    }
    const honored = new Set(subscription.honoredFilter.resourceSubscriptions ?? []);
    this.#current = { subscription, requested: wanted, honored };
    this.#failures = 0;
    void subscription.closed.then((how) => {
      if (how === 'remote' && this.#current?.subscription === subscription) this.#listenLater();
    });
    await previous?.subscription.close();
  }

  /** The stream dropped: listened again after the backoff, its failures counted. */
  #listenLater(): void {
    if (this.#closed) return;
    this.#current = undefined;
    const wait = Math.min(maxRetryMs, firstRetryMs * 2 ** this.#failures++);
    this.#retry = setTimeout(
      () => {
        this.#sync().catch(() => this.#listenLater());
      },
      wait / 2 + (Math.random() * wait) / 2,
    );
    this.#retry.unref?.();
  }
}

function sameSet(one: ReadonlySet<string>, other: ReadonlySet<string>): boolean {
  if (one.size !== other.size) return false;
  for (const item of one) if (!other.has(item)) return false;
  return true;
}
