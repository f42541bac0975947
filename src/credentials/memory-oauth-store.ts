import type { OAuthRecordKind, OAuthStore, OAuthSubject } from './oauth-authorizer.js';
import { oauthRecordName } from './oauth-record-name.js';

/** An `OAuthStore` in memory: for tests, and for hosts that keep no tokens across restarts. */
export class MemoryOAuthStore implements OAuthStore {
  readonly #records = new Map<string, unknown>();

  get(subject: OAuthSubject, kind: OAuthRecordKind): unknown {
    return structuredClone(this.#records.get(oauthRecordName(subject, kind)));
  }

  set(subject: OAuthSubject, kind: OAuthRecordKind, value: unknown): void {
    this.#records.set(oauthRecordName(subject, kind), structuredClone(value));
  }

  delete(subject: OAuthSubject, kinds: readonly OAuthRecordKind[] = allKinds): void {
    for (const kind of kinds) this.#records.delete(oauthRecordName(subject, kind));
  }
}

export const allKinds: readonly OAuthRecordKind[] = ['tokens', 'client', 'verifier', 'discovery'];
