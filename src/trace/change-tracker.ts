import { LRUCache } from 'lru-cache';
import { boundedByCount } from '../options/bounded-by-count.js';

export type ContentChange = 'new' | 'changed' | 'unchanged';

/**
 * Remembers, per conversation, the sha256 each resource had when last injected, so a host can
 * tell the model what changed since the previous turn. Bounded: the least recently active
 * conversations are forgotten first (their next turn reports every resource as `new`).
 */
export class ChangeTracker {
  readonly #conversations: LRUCache<string, Map<string, string>>;

  constructor(maxConversations = 10_000) {
    this.#conversations = new LRUCache(boundedByCount(maxConversations));
  }

  /** Compares with the last turn of this conversation and records the new version. */
  observe(conversation: string, server: string, uri: string, sha256: string): ContentChange {
    let versions = this.#conversations.get(conversation);
    if (!versions) {
      versions = new Map();
      this.#conversations.set(conversation, versions);
    }
    const key = `${server}\u0000${uri}`;
    const previous = versions.get(key);
    versions.set(key, sha256);
    if (previous === undefined) return 'new';
    return previous === sha256 ? 'unchanged' : 'changed';
  }
}
