import { ContextError } from '../errors.js';
import { type PrincipalSessionLimits, PrincipalSessions, type SessionLease } from './principal-sessions.js';
import type { McpServerConfig } from './server-config.js';
import { type ConnectionOptions, ServerConnection } from './server-connection.js';
import type { ServerStatus } from './server-status.js';
import { toContextError } from './to-context-error.js';

/**
 * The registry's connections by server name: one shared `ServerConnection` per configured
 * server, and for a per-user server one per principal (`PrincipalSessions`). It answers which
 * connection a request goes to; it sends nothing itself.
 */
export class ServerPool {
  readonly #connections = new Map<string, ServerConnection>();
  /** Per-user servers: one session per principal. */
  readonly #perUser = new Map<string, PrincipalSessions>();

  constructor(
    servers: Readonly<Record<string, McpServerConfig>>,
    options: ConnectionOptions,
    principalSessions: PrincipalSessionLimits,
  ) {
    for (const [name, config] of Object.entries(servers)) {
      this.#connections.set(name, new ServerConnection(name, config, options));
      if (isPerUser(config)) {
        const create = (principal: string) => new ServerConnection(name, config, options, principal);
        this.#perUser.set(name, new PrincipalSessions(name, create, principalSessions));
      }
    }
  }

  /** Configured server names, in config order. */
  get serverNames(): string[] {
    return [...this.#connections.keys()];
  }

  has(server: string): boolean {
    return this.#connections.has(server);
  }

  isPerUser(server: string): boolean {
    return this.#perUser.has(server);
  }

  /** The server's shared connection (UNKNOWN_SERVER when no server has that name). */
  configured(server: string): ServerConnection {
    const connection = this.#connections.get(server);
    if (!connection) {
      throw new ContextError('UNKNOWN_SERVER', `no MCP server named "${server}" is configured`, {
        server,
        field: 'server',
        value: server,
      });
    }
    return connection;
  }

  /**
   * UNKNOWN_SERVER for no server; PRINCIPAL_REQUIRED for a per-user server when the call names
   * no principal. A shared server ignores the principal.
   */
  requirePrincipal(server: string, principal: string | undefined): void {
    this.configured(server);
    if (this.#perUser.has(server) && principal === undefined) {
      throw new ContextError(
        'PRINCIPAL_REQUIRED',
        `server "${server}" is per-user: the call must name the principal (the user) it is for`,
        { server, field: 'principal' },
      );
    }
  }

  /**
   * The connection one request goes to, held until `release()`: the server's one session, or for
   * a per-user server the principal's own, which is not closed while the request runs. Waiting for
   * a principal's session (all `principalSessions.max` busy) ends in SESSIONS_EXHAUSTED, or
   * ABORTED by the caller's signal.
   */
  async lease(
    server: string,
    principal: string | undefined,
    operation: string,
    bounds: { readonly signal?: AbortSignal; readonly timeoutMs?: number },
  ): Promise<SessionLease> {
    this.requirePrincipal(server, principal);
    const sessions = this.#perUser.get(server);
    if (sessions === undefined || principal === undefined) {
      return { connection: this.configured(server), release: () => undefined };
    }
    try {
      return await sessions.acquire(principal, bounds);
    } catch (error) {
      throw toContextError(error, { server, operation, signal: bounds.signal });
    }
  }

  /** The connection open now for this server and principal, if any (opens none). */
  openConnection(server: string, principal: string | undefined): ServerConnection | undefined {
    const sessions = this.#perUser.get(server);
    if (sessions === undefined) return this.#connections.get(server);
    return principal === undefined ? undefined : sessions.peek(principal);
  }

  /**
   * The connection whose credentials an error of this server and principal may carry: the
   * principal's open session, or the shared one.
   */
  redactorFor(server: string, principal: string | undefined): ServerConnection | undefined {
    return (
      (principal === undefined ? undefined : this.#perUser.get(server)?.peek(principal)) ??
      this.#connections.get(server)
    );
  }

  statuses(): ServerStatus[] {
    return [...this.#connections.values()].map((connection) => connection.status());
  }

  async close(): Promise<void> {
    await Promise.all([
      ...[...this.#connections.values()].map((connection) => connection.close()),
      ...[...this.#perUser.values()].map((sessions) => sessions.close()),
    ]);
  }
}

// --- Internal helpers ---

function isPerUser(config: McpServerConfig): boolean {
  return 'url' in config && config.auth?.type === 'oauth' && config.auth.perUser;
}
