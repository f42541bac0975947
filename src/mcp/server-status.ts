import type { Implementation, ServerCapabilities } from '@modelcontextprotocol/client';
import type { ActiveTransport } from './connect-with-fallback.js';

/** `failed`: `maxFailures` consecutive failures; calls are refused until the next (long) attempt or `reconnect()`. */
export type ConnectionState =
  | 'idle'
  | 'connecting'
  | 'connected'
  | 'disconnected'
  | 'error'
  | 'failed'
  | 'closed';

/** One server as the registry sees it right now: plain data, safe to log (no credentials). */
export interface ServerStatus {
  readonly server: string;
  /** The configured transport (`auto` until a session says which one it took). */
  readonly configuredTransport: ActiveTransport | 'auto';
  /** The transport of the current or last session. */
  readonly transport?: ActiveTransport;
  readonly state: ConnectionState;
  readonly lastError?: { readonly code: string; readonly message: string; readonly at: string };
  /** ISO 8601 time of the last operation addressed to this server. */
  readonly lastUsedAt?: string;
  /** ISO 8601 time the current or last session was initialized. */
  readonly connectedAt?: string;
  readonly serverInfo?: Implementation;
  readonly capabilities?: ServerCapabilities;
  readonly instructions?: string;
  /**
   * The MCP revision the current or last session speaks: `2025-11-25` (or an older one a 2025
   * server chose) after `initialize`, `2026-07-28` with a server of the stateless revision.
   */
  readonly protocolVersion?: string;
  /** Known after a complete resources/list (all pages); cleared when the list changes. */
  readonly resourceCount?: number;
  /** Known after a complete prompts/list; cleared when the list changes. */
  readonly promptCount?: number;
  /** Failed connect attempts since the last session opened. */
  readonly reconnectAttempts: number;
  /**
   * Consecutive failures: failed connects and sessions that closed sooner than
   * `reconnect.stableSessionMs` after opening. At `reconnect.maxFailures` the state is `failed`.
   */
  readonly consecutiveFailures: number;
  /** ISO 8601 time of the next reconnect attempt, while one is scheduled. */
  readonly nextReconnectAt?: string;
}

/** The mutable record behind a `ServerStatus`; `snapshot()` hands out a copy. */
export class ServerStatusRecord {
  #status: { -readonly [Key in keyof ServerStatus]: ServerStatus[Key] };

  constructor(server: string, configuredTransport: ActiveTransport | 'auto') {
    this.#status = {
      server,
      configuredTransport,
      state: 'idle',
      reconnectAttempts: 0,
      consecutiveFailures: 0,
    };
  }

  get state(): ConnectionState {
    return this.#status.state;
  }

  /** The current or last session's revision, without a snapshot (a turn's trace asks every turn). */
  get protocolVersion(): string | undefined {
    return this.#status.protocolVersion;
  }

  update(changes: Partial<Omit<ServerStatus, 'server' | 'configuredTransport'>>): void {
    this.#status = { ...this.#status, ...changes };
  }

  /** Removes fields that no longer hold (e.g. a count after list_changed). */
  clear(...fields: Array<'resourceCount' | 'promptCount' | 'nextReconnectAt'>): void {
    const next = { ...this.#status };
    for (const field of fields) delete next[field];
    this.#status = next;
  }

  recordError(error: { code: string; message: string }): void {
    this.update({ lastError: { code: error.code, message: error.message, at: new Date().toISOString() } });
  }

  snapshot(): ServerStatus {
    return structuredClone(this.#status);
  }
}
