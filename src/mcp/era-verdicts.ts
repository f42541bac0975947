import type { McpServerConfig } from './server-config.js';

/**
 * Which endpoints speak the 2026-07-28 revision, learnt from their `-32022` answers: the next
 * session to one of them goes straight to the v2 client, without the 2025 `initialize` it is
 * known to refuse. One per registry, shared by every session of a server (each principal's
 * included). Only modern verdicts are kept: the 2025 path is the one tried first anyway. Keyed
 * by the endpoint's URL, not its origin, since one origin may serve endpoints of both eras; a
 * stdio server by what starts it (`endpointOf`).
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

  /** The revision a session to `endpoint` speaks, if it is known to be modern-only. */
  modernVersionOf(endpoint: string): string | undefined {
    return this.#modern.get(keyOf(endpoint));
  }

  recordModern(endpoint: string, protocolVersion: string): void {
    this.#modern.set(keyOf(endpoint), protocolVersion);
  }

  /** A modern connect failed: the next session tries the 2025 handshake first again. */
  forget(endpoint: string): void {
    this.#modern.delete(keyOf(endpoint));
  }
}

// --- Internal helpers ---

/** A URL in its normal form (`HTTP://Host:80/x` is `http://host/x`); a stdio endpoint as it is. */
function keyOf(endpoint: string): string {
  return endpoint.startsWith('stdio:') ? endpoint : new URL(endpoint).href;
}
