import { LRUCache } from 'lru-cache';
import { boundedByCount } from '../options/bounded-by-count.js';

export type ContentChange = 'new' | 'changed' | 'unchanged';

// Per conversation: server → uri → the sha256 last injected (nested, so no key is built per call).
type Versions = Map<string, Map<string, string>>;

/**
 * Remembers, per conversation, the sha256 each resource had when last injected, so a host can
 * tell the model what changed since the previous turn. Bounded: the least recently active
 * conversations are forgotten first (their next turn reports every resource as `new`).
 */
export class ChangeTracker {
  readonly #conversations: LRUCache<string, Versions>;
  // A turn observes all its resources for one conversation in a row: it is looked up once.
  #last: { readonly conversation: string; readonly versions: Versions } | undefined;

  constructor(maxConversations = 10_000) {
    this.#conversations = new LRUCache(boundedByCount(maxConversations));
  }

  /** Compares with the last turn of this conversation and records the new version. */
  observe(conversation: string, server: string, uri: string, sha256: string): ContentChange {
    const versions = this.#versionsOf(conversation);
    let ofServer = versions.get(server);
    if (!ofServer) {
      ofServer = new Map();
      versions.set(server, ofServer);
    }
    const previous = ofServer.get(uri);
    if (previous === sha256) return 'unchanged';
    ofServer.set(uri, sha256);
    return previous === undefined ? 'new' : 'changed';
  }

  #versionsOf(conversation: string): Versions {
    // Only observe touches the LRU: between two calls for the same conversation nothing was evicted.
    if (this.#last?.conversation === conversation) return this.#last.versions;
    let versions = this.#conversations.get(conversation);
    if (!versions) {
      versions = new Map();
      this.#conversations.set(conversation, versions);
    }
    this.#last = { conversation, versions };
    return versions;
  }
}
