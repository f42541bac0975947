import type { ServerConnection } from './server-connection.js';

export interface PrincipalSessionLimits {
  /** A principal's session closes after this long unused (ms). */
  readonly idleMs: number;
  /** Most principals with an open session per server; the least recently used closes first. */
  readonly max: number;
}

/**
 * A per-user server's sessions: one `ServerConnection` (session and credential set) per
 * principal, opened on first use, closed when idle, at most `max` at a time.
 */
export class PrincipalSessions {
  readonly #create: (principal: string) => ServerConnection;
  readonly #limits: PrincipalSessionLimits;
  /** In use order: the first entry is the least recently used. */
  readonly #sessions = new Map<string, { connection: ServerConnection; idle: NodeJS.Timeout }>();

  constructor(create: (principal: string) => ServerConnection, limits: PrincipalSessionLimits) {
    this.#create = create;
    this.#limits = limits;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** The principal's connection, created if needed; its idle clock restarts. */
  get(principal: string): ServerConnection {
    const entry = this.#sessions.get(principal);
    if (entry !== undefined) clearTimeout(entry.idle);
    const connection = entry?.connection ?? this.#create(principal);
    this.#sessions.delete(principal);
    const idle = setTimeout(() => this.#closeOne(principal), this.#limits.idleMs);
    idle.unref();
    this.#sessions.set(principal, { connection, idle });
    while (this.#sessions.size > this.#limits.max) {
      const oldest = this.#sessions.keys().next().value as string;
      this.#closeOne(oldest);
    }
    return connection;
  }

  /** The principal's connection if one is open now (never creates one). */
  peek(principal: string): ServerConnection | undefined {
    return this.#sessions.get(principal)?.connection;
  }

  async close(): Promise<void> {
    const entries = [...this.#sessions.values()];
    this.#sessions.clear();
    for (const entry of entries) clearTimeout(entry.idle);
    await Promise.all(entries.map((entry) => entry.connection.close()));
  }

  // --- Internal helpers ---

  #closeOne(principal: string): void {
    const entry = this.#sessions.get(principal);
    if (entry === undefined) return;
    clearTimeout(entry.idle);
    this.#sessions.delete(principal);
    void entry.connection.close().catch(() => undefined);
  }
}
