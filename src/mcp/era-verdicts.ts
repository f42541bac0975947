/**
 * Which endpoints speak the 2026-07-28 revision, learnt from their `-32022` answers: the next
 * session to one of them goes straight to the v2 client, without the 2025 `initialize` it is
 * known to refuse. One per registry, shared by every session of a server (each principal's
 * included). Only modern verdicts are kept: the 2025 path is the one tried first anyway. Keyed
 * by the endpoint's URL, not its origin, since one origin may serve endpoints of both eras.
 */
export class EraVerdicts {
  readonly #modern = new Map<string, string>();

  /** The revision a session to `url` speaks, if the endpoint is known to be modern-only. */
  modernVersionOf(url: string): string | undefined {
    return this.#modern.get(keyOf(url));
  }

  recordModern(url: string, protocolVersion: string): void {
    this.#modern.set(keyOf(url), protocolVersion);
  }

  /** A modern connect failed: the next session tries the 2025 handshake first again. */
  forget(url: string): void {
    this.#modern.delete(keyOf(url));
  }
}

// --- Internal helpers ---

function keyOf(url: string): string {
  return new URL(url).href;
}
