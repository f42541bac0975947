import { ContextError } from '../errors.js';
import { onAbort } from './on-abort.js';
import type { ServerConnection } from './server-connection.js';

export interface PrincipalSessionLimits {
  /** A principal's session closes after this long with no request in flight (ms). */
  readonly idleMs: number;
  /** Most principals with an open session per server; the least recently used idle one closes first. */
  readonly max: number;
  /** Longest a request waits for a session when all `max` are busy (ms), then SESSIONS_EXHAUSTED. */
  readonly waitMs: number;
}

/** A principal's connection, held for one request: `release()` when the request is over. */
export interface SessionLease {
  readonly connection: ServerConnection;
  release(): void;
}

/** How long one request may wait for a session, beside `waitMs`. */
export interface LeaseBounds {
  readonly signal?: AbortSignal;
  /** The request's own time limit (ms), when it has one: waiting counts against it. */
  readonly timeoutMs?: number;
}

interface SessionEntry {
  readonly connection: ServerConnection;
  /** Requests running on the session now: it is closed only at zero. */
  inFlight: number;
  idle: NodeJS.Timeout | undefined;
}

interface Waiter {
  readonly principal: string;
  readonly grant: (lease: SessionLease) => void;
  readonly refuse: (error: Error) => void;
}

/**
 * A per-user server's sessions: one `ServerConnection` (session and credential set) per
 * principal, opened on first use, at most `max` open at a time. Only a session with no request
 * in flight is ever closed (idle for `idleMs`, or the least recently used idle one making room),
 * so no request fails because another principal needed a session. A request that needs a new
 * session while all `max` are busy waits, first come first served, until one is idle and closed,
 * or fails with SESSIONS_EXHAUSTED after `waitMs` (or its own timeout).
 */
export class PrincipalSessions {
  readonly #server: string;
  readonly #create: (principal: string) => ServerConnection;
  readonly #limits: PrincipalSessionLimits;
  /** In use order: the first entry is the least recently used. */
  readonly #sessions = new Map<string, SessionEntry>();
  /** Sessions closed to make room whose close has not finished: they still hold their slot. */
  #closing = 0;
  readonly #waiters: Waiter[] = [];
  #closed = false;

  constructor(
    server: string,
    create: (principal: string) => ServerConnection,
    limits: PrincipalSessionLimits,
  ) {
    this.#server = server;
    this.#create = create;
    this.#limits = limits;
  }

  /** Sessions open now, those still closing included: never more than `max`. */
  get size(): number {
    return this.#sessions.size + this.#closing;
  }

  /**
   * The principal's connection for one request, created if needed; it cannot be closed until
   * the lease is released. Waits when every session is busy (see the class).
   */
  async acquire(principal: string, bounds: LeaseBounds = {}): Promise<SessionLease> {
    if (this.#closed) throw this.#closedError();
    bounds.signal?.throwIfAborted();
    // Behind earlier waiters unless the principal's own session is already open.
    const lease =
      this.#waiters.length === 0 || this.#sessions.has(principal) ? this.#tryLease(principal) : undefined;
    if (lease !== undefined) return lease;
    return this.#wait(principal, bounds);
  }

  /** The principal's connection if one is open now (never creates one). */
  peek(principal: string): ServerConnection | undefined {
    return this.#sessions.get(principal)?.connection;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const entries = [...this.#sessions.values()];
    this.#sessions.clear();
    for (const waiter of [...this.#waiters]) waiter.refuse(this.#closedError());
    for (const entry of entries) clearTimeout(entry.idle);
    await Promise.all(entries.map((entry) => entry.connection.close()));
  }

  // --- Internal helpers ---

  /** A lease now if the principal has a session or there is room to open one. */
  #tryLease(principal: string): SessionLease | undefined {
    let entry = this.#sessions.get(principal);
    if (entry === undefined) {
      if (this.size >= this.#limits.max) return undefined;
      entry = { connection: this.#create(principal), inFlight: 0, idle: undefined };
    }
    this.#sessions.delete(principal);
    this.#sessions.set(principal, entry);
    clearTimeout(entry.idle);
    entry.idle = undefined;
    entry.inFlight++;
    return this.#leaseOf(principal, entry);
  }

  #leaseOf(principal: string, entry: SessionEntry): SessionLease {
    let released = false;
    return {
      connection: entry.connection,
      release: () => {
        if (released) return;
        released = true;
        entry.inFlight--;
        if (entry.inFlight > 0 || this.#sessions.get(principal) !== entry) return;
        entry.idle = setTimeout(() => this.#closeIdle(principal, entry), this.#limits.idleMs);
        entry.idle.unref();
        this.#wake();
      },
    };
  }

  #wait(principal: string, bounds: LeaseBounds): Promise<SessionLease> {
    const waitMs = Math.min(this.#limits.waitMs, bounds.timeoutMs ?? Number.POSITIVE_INFINITY);
    const started = performance.now();
    return new Promise<SessionLease>((resolve, reject) => {
      const leave = () => {
        clearTimeout(timer);
        stopWaiting?.();
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
      };
      const waiter: Waiter = {
        principal,
        grant: (lease) => {
          leave();
          resolve(lease);
        },
        refuse: (error) => {
          leave();
          reject(error);
        },
      };
      const timer = setTimeout(() => waiter.refuse(this.#exhausted(performance.now() - started)), waitMs);
      // Many callers may wait on one signal (a turn's): they share one listener on it.
      const signal = bounds.signal;
      const stopWaiting =
        signal && !signal.aborted ? onAbort(signal, () => waiter.refuse(signal.reason as Error)) : undefined;
      this.#waiters.push(waiter);
      this.#wake();
    });
  }

  /**
   * Hands room to waiters in arrival order (a waiter whose principal has a session by now needs
   * none), then closes idle sessions for those still waiting.
   */
  #wake(): void {
    for (const waiter of [...this.#waiters]) {
      const lease = this.#tryLease(waiter.principal);
      if (lease !== undefined) waiter.grant(lease);
    }
    this.#makeRoom();
  }

  /**
   * Closes least recently used idle sessions, one for each waiter that needs a new session and
   * is not already covered by a close under way; their slots free when the close has finished.
   */
  #makeRoom(): void {
    if (this.#closed) return;
    const principalsWaiting = new Set(this.#waiters.map((waiter) => waiter.principal));
    let needed = [...principalsWaiting].filter((principal) => !this.#sessions.has(principal)).length;
    needed -= this.#closing;
    for (const [principal, entry] of [...this.#sessions]) {
      if (needed <= 0 || this.size < this.#limits.max) return;
      if (entry.inFlight > 0) continue;
      this.#closeIdle(principal, entry);
      needed--;
    }
  }

  #closeIdle(principal: string, entry: SessionEntry): void {
    if (this.#sessions.get(principal) !== entry || entry.inFlight > 0) return;
    clearTimeout(entry.idle);
    this.#sessions.delete(principal);
    this.#closing++;
    void entry.connection
      .close()
      .catch(() => undefined)
      .finally(() => {
        this.#closing--;
        if (!this.#closed) this.#wake();
      });
  }

  #exhausted(waitedMs: number): ContextError {
    return new ContextError(
      'SESSIONS_EXHAUSTED',
      `server "${this.#server}": all ${this.#limits.max} sessions (principalSessions.max) stayed busy for ${Math.round(waitedMs)} ms; no session could be opened for this principal`,
      { server: this.#server, field: 'principalSessions.max', limit: this.#limits.max },
    );
  }

  #closedError(): ContextError {
    return new ContextError('SESSION_CLOSED', `server "${this.#server}": the registry is closed`, {
      server: this.#server,
    });
  }
}
