import { LRUCache } from 'lru-cache';
import { boundedByCount } from '../options/bounded-by-count.js';

export type ContentChange = 'new' | 'changed' | 'unchanged';

/**
 * One conversation's versions: server → uri → the sha256 last injected (nested, so no key is
 * built per call), and how many times one was recorded.
 */
export interface History {
  readonly servers: Map<string, Map<string, string>>;
  changes: number;
}

/**
 * Remembers, per conversation, the sha256 each resource had when last injected, so a host can
 * tell the model what changed since the previous turn. Bounded: the least recently active
 * conversations are forgotten first (their next turn reports every resource as `new`), and in
 * each, per server, the resources least recently injected past `maxResources` (a chat that
 * attaches a new file every turn would otherwise grow its history by one every turn).
 */
export class ChangeTracker {
  readonly #conversations: LRUCache<string, History>;
  readonly #maxResources: number;
  // A turn observes all its resources for one conversation in a row: it is looked up once.
  #last: { readonly conversation: string; readonly history: History } | undefined;

  constructor(maxConversations = 10_000, maxResources = 128) {
    this.#conversations = new LRUCache(boundedByCount(maxConversations));
    this.#maxResources = maxResources;
  }

  /** Compares with the last turn of this conversation and records the new version. */
  observe(conversation: string, server: string, uri: string, sha256: string): ContentChange {
    const history = this.historyOf(conversation);
    let ofServer = history.servers.get(server);
    if (!ofServer) {
      ofServer = new Map();
      history.servers.set(server, ofServer);
    }
    const previous = ofServer.get(uri);
    // Moved to the end: the map runs from the least recently injected to the most.
    if (previous !== undefined) ofServer.delete(uri);
    ofServer.set(uri, sha256);
    if (previous === sha256) return 'unchanged';
    // A version recorded, or one forgotten: kept turns that relied on the history are not kept.
    history.changes++;
    if (ofServer.size > this.#maxResources) ofServer.delete(ofServer.keys().next().value as string);
    return previous === undefined ? 'new' : 'changed';
  }

  /**
   * The conversation's history, as active now (a turn's use of it, like `observe`'s). While it
   * is the same object with the same `changes`, every version observed in it still stands.
   */
  historyOf(conversation: string): History {
    // Only this touches the LRU: between two calls for the same conversation nothing was evicted.
    if (this.#last?.conversation === conversation) return this.#last.history;
    let history = this.#conversations.get(conversation);
    if (!history) {
      history = { servers: new Map(), changes: 0 };
      this.#conversations.set(conversation, history);
    }
    this.#last = { conversation, history };
    return history;
  }
}
