import type { McpServerConfig } from './server-config.js';

/**
 * What each endpoint was found to speak. Modern: learnt from a `server/discover` probe or a
 * `-32022` answer; the next session to it goes straight to the v2 client. Legacy: its probe was
 * answered as a 2025 server answers an unknown method (an HTTP 4xx, a JSON-RPC error); the next
 * session goes straight to the 2025 `initialize`, without probing again, until the verdict is
 * an hour old (a server may be upgraded in place). One per registry, shared by every session of a
 * server (each principal's included). Keyed by the endpoint's URL, not its origin, since one
 * origin may serve endpoints of both eras; a stdio server by what starts it (`endpointOf`).
 */
export class EraVerdicts {
  /**
   * What a server's verdict is kept under: a remote server's URL; a stdio server's command,
   * arguments, working directory and environment (another of any of them may be another server).
   * Undefined for an in-process transport, whose era is the host's own business.
   */
  static endpointOf(config: McpServerConfig): string | undefined {
    if ('url' in config) return config.url;
    if (!('command' in config)) return undefined;
    return `stdio:${JSON.stringify([config.command, config.args, config.cwd ?? null, config.env ?? {}])}`;
  }

  readonly #modern = new Map<string, string>();
  /** Legacy endpoints, each with when its verdict lapses (Date.now()). */
  readonly #legacy = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** The revision a session to `endpoint` speaks, if it is known to be modern. */
  modernVersionOf(endpoint: string): string | undefined {
    return this.#modern.get(keyOf(endpoint));
  }

  /** Whether `endpoint` answered a probe as a 2025 server, within the last hour. */
  isLegacy(endpoint: string): boolean {
    const key = keyOf(endpoint);
    const until = this.#legacy.get(key);
    if (until === undefined) return false;
    if (until > this.#now()) return true;
    this.#legacy.delete(key);
    return false;
  }

  recordModern(endpoint: string, protocolVersion: string): void {
    this.#legacy.delete(keyOf(endpoint));
    this.#modern.set(keyOf(endpoint), protocolVersion);
  }

  recordLegacy(endpoint: string): void {
    this.#modern.delete(keyOf(endpoint));
    this.#legacy.set(keyOf(endpoint), this.#now() + legacyVerdictMs);
  }

  /** A modern connect failed: the next session starts from the probe (or the 2025 handshake) again. */
  forget(endpoint: string): void {
    this.#modern.delete(keyOf(endpoint));
  }
}

/** How long a legacy verdict stands before the endpoint is probed again. */
export const legacyVerdictMs = 60 * 60 * 1000;

// --- Internal helpers ---

/** A URL in its normal form (`HTTP://Host:80/x` is `http://host/x`); a stdio endpoint as it is. */
function keyOf(endpoint: string): string {
  return endpoint.startsWith('stdio:') ? endpoint : new URL(endpoint).href;
}
