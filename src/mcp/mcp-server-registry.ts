import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/client';
import { EventEmitter } from 'eventemitter3';
import { AuditLog, type AuditSubject, actorOf } from '../audit/audit-log.js';
import type { AuthorizationAnswer } from '../credentials/oauth-authorizer.js';
import { ContextError } from '../errors.js';
import { parseOptions } from '../options/parse-options.js';
import { AuditedOperations } from './audited-operations.js';
import type { CappedReadResult } from './cap-read-result.js';
import { EraVerdicts } from './era-verdicts.js';
import { KnownIdentities } from './known-identities.js';
import {
  type CallOptions,
  type CompleteRequest,
  callOptionsSchema,
  type ListOptions,
  type ReadOptions,
} from './operation-schemas.js';
import { pinUpdatesOf } from './pin-updates-of.js';
import { type Operations, RegistryOperations } from './registry-operations.js';
import {
  type McpServerRegistryOptions,
  type ResolvedRegistryOptions,
  registryOptionsSchema,
} from './registry-options.js';
import type { ConnectionEvent } from './server-connection.js';
import { serverIdentity } from './server-identity.js';
import type { Completion, ServerOperations } from './server-operations.js';
import { ServerPool } from './server-pool.js';
import type { ServerStatus } from './server-status.js';
import type { Skill } from './skill-schemas.js';

export type { CallOptions, CompleteRequest, ListOptions, ReadOptions } from './operation-schemas.js';
export type { McpServerRegistryOptions } from './registry-options.js';
export type { Completion } from './server-operations.js';
export type { Skill, SkillResource } from './skill-schemas.js';

/** Events by name, each with the facts of one `ConnectionEvent`. */
export type RegistryEvents = {
  [Type in ConnectionEvent['type']]: [event: Extract<ConnectionEvent, { type: Type }>];
};

/**
 * The MCP servers a host talks to, by name: one lazily opened session each (reopened with
 * backoff when it closes), and the typed operations on them. This is the operator's view; a
 * pipeline's view goes through its access-policy binding (`AccessPolicy.bind`).
 *
 * It is made of three parts: the `ServerPool` (which connection a request goes to), the
 * `RegistryOperations` (the requests themselves), and with audit sinks the `AuditedOperations`
 * around them (one record each).
 */
export class McpServerRegistry extends EventEmitter<RegistryEvents> implements ServerOperations {
  readonly #options: ResolvedRegistryOptions;
  readonly #pool: ServerPool;
  readonly #core: RegistryOperations;
  /** The core, or the core inside its audit decorator. */
  readonly #operations: Operations;
  readonly #audit: AuditLog | undefined;
  readonly #identities: KnownIdentities;

  constructor(options: McpServerRegistryOptions) {
    super();
    this.#options = parseOptions(registryOptionsSchema, options, 'options');
    if (this.maxResponseBytes < this.#options.maxReadBytes) {
      throw new ContextError(
        'INVALID_OPTION',
        `options.maxResponseBytes (${this.maxResponseBytes}) is below options.maxReadBytes (${this.#options.maxReadBytes}): no read could reach its cap`,
        { field: 'maxResponseBytes', value: this.maxResponseBytes },
      );
    }
    const resolved = this.#options;
    const notify = (event: ConnectionEvent) => {
      if (event.type === 'resources-list-changed' || event.type === 'resource-updated') {
        resolved.telemetry?.recordInvalidation(event.server, event.type);
      } else if (event.type !== 'reconnect-scheduled') {
        this.#core.forgetPrompts(event.server, event.principal);
      }
      (this.emit as (type: string, event: ConnectionEvent) => boolean)(event.type, event);
    };
    this.#pool = new ServerPool(
      resolved.mcpServers,
      {
        reconnect: resolved.reconnect,
        endpointPolicy: resolved.endpointPolicy,
        connectTimeoutMs: resolved.requestTimeoutMs,
        maxResponseBytes: this.maxResponseBytes,
        notify,
        eraVerdicts: new EraVerdicts(),
        ...(resolved.credentials !== undefined && { credentials: resolved.credentials }),
        ...(resolved.authorizer !== undefined && { authorizer: resolved.authorizer }),
        ...(resolved.elicitation !== undefined && { elicitation: resolved.elicitation }),
        ...(resolved.telemetry !== undefined && { telemetry: resolved.telemetry }),
      },
      resolved.principalSessions,
    );
    this.#core = new RegistryOperations(this.#pool, {
      requestTimeoutMs: resolved.requestTimeoutMs,
      maxReadBytes: resolved.maxReadBytes,
      maxPages: resolved.maxPages,
      maxItems: resolved.maxItems,
      ...(resolved.telemetry !== undefined && { telemetry: resolved.telemetry }),
    });
    this.#audit = auditLogOf(resolved);
    this.#operations =
      this.#audit === undefined ? this.#core : new AuditedOperations(this.#core, this.#audit);
    this.#identities = new KnownIdentities((server) =>
      serverIdentity(server, this.#pool.configured(server).config, {
        endpointPolicy: resolved.endpointPolicy,
        maxReadBytes: resolved.maxReadBytes,
        ...(resolved.credentials !== undefined && { credentials: resolved.credentials }),
        ...(resolved.authorizer !== undefined && { authorizer: resolved.authorizer }),
      }),
    );
  }

  /** The most bytes of one HTTP response body (one event of a stream) a session reads. */
  get maxResponseBytes(): number {
    return this.#options.maxResponseBytes ?? 2 * this.#options.maxReadBytes + 1024 * 1024;
  }

  /** The most content bytes one read keeps unless a call asks for fewer (`maxReadBytes`). */
  get maxReadBytes(): number {
    return this.#options.maxReadBytes;
  }

  /** Configured server names, in config order. */
  get serverNames(): string[] {
    return this.#pool.serverNames;
  }

  has(server: string): boolean {
    return this.#pool.has(server);
  }

  /** Whether `server` is per-user: each principal has its own session, credentials and content. */
  isPerUser(server: string): boolean {
    return this.#pool.isPerUser(server);
  }

  /**
   * Which server `server` stands for, as caches key its content (see `serverIdentity`): the same
   * in every registry, here or on another replica, whose entry reaches the same server with the
   * same credentials; different wherever either differs. A SHA-256, never a credential in clear.
   * Answered at once unless a `{ secret }` must be fetched from an asynchronous credential
   * source (then once, on first use); rejects as connecting would when a reference cannot be
   * resolved (and is asked again next time).
   */
  identityOf(server: string): string | Promise<string> {
    return this.#identities.of(server);
  }

  /**
   * State, last error, last use, server info, capabilities, instructions and counts. A per-user
   * server's status is one principal's (`{ principal }`, else PRINCIPAL_REQUIRED): that
   * principal's open session, or `idle` when none is open; a shared server ignores the principal.
   */
  status(server: string, options: Pick<CallOptions, 'principal'> = {}): ServerStatus {
    const { principal } = parseOptions(callOptionsSchema, options, 'options');
    this.#pool.requirePrincipal(server, principal);
    return (this.#pool.openConnection(server, principal) ?? this.#pool.configured(server)).status();
  }

  statuses(): ServerStatus[] {
    return this.#pool.statuses();
  }

  /**
   * The MCP revision `server`'s current or last session speaks (the status's `protocolVersion`),
   * cheaply, for a turn's trace: a per-user server's is the principal's open session's. Undefined
   * when no session has said it (none opened yet, no principal, an unknown name).
   */
  protocolVersionOf(server: string, principal?: string): string | undefined {
    return this.#pool.openConnection(server, principal)?.protocolVersion;
  }

  listResources(
    server: string,
    options: ListOptions = {},
  ): Promise<{ resources: Resource[]; nextCursor?: string }> {
    return this.#operations.list('resources', server, options);
  }

  listResourceTemplates(
    server: string,
    options: ListOptions = {},
  ): Promise<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string }> {
    return this.#operations.list('resourceTemplates', server, options);
  }

  listPrompts(
    server: string,
    options: ListOptions = {},
  ): Promise<{ prompts: Prompt[]; nextCursor?: string }> {
    return this.#operations.list('prompts', server, options);
  }

  listTools(server: string, options: ListOptions = {}): Promise<{ tools: Tool[]; nextCursor?: string }> {
    return this.#operations.list('tools', server, options);
  }

  /**
   * The skills a server publishes (skills extension `io.modelcontextprotocol/skills`,
   * `skills/list`), each entry checked; CAPABILITY_MISSING when the server does not declare it.
   * An empty or partial listing does not mean a skill is absent: `getSkill` asks by URI.
   */
  listSkills(server: string, options: ListOptions = {}): Promise<{ skills: Skill[]; nextCursor?: string }> {
    return this.#operations.list('skills', server, options);
  }

  /**
   * Reads one resource, every content item kept as the server sent it, at most `maxBytes` of
   * content (cuts reported in `truncation`). The URI is opaque: it goes to this server's
   * session and nowhere else. A server that reports failure as a `text/plain` "Error: …"
   * body gets RESOURCE_ERROR_BODY (unless its config sets `plainTextErrors: false`).
   */
  readResource(server: string, uri: string, options: ReadOptions = {}): Promise<CappedReadResult> {
    return this.#operations.readResource(server, uri, options);
  }

  /**
   * Gets a prompt with its messages and roles as the server sent them. Arguments the
   * prompt's listing marks required are checked first (PROMPT_ARGUMENT_MISSING), so a
   * missing one never reaches the server.
   */
  getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    return this.#operations.getPrompt(server, name, args, options);
  }

  /** Calls a tool. A tool's own failure (`isError: true`) is its result, not an exception. */
  callTool(
    server: string,
    name: string,
    args: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    return this.#operations.callTool(server, name, args, options);
  }

  /**
   * Candidates for one argument of a resource template or a prompt, given what was typed so far
   * (MCP spec, server/utilities/completion). A server that does not declare `completions` is
   * CAPABILITY_MISSING, asked nothing.
   */
  complete(server: string, request: CompleteRequest, options: CallOptions = {}): Promise<Completion> {
    return this.#operations.complete(server, request, options);
  }

  /** One skill's entry by the URI of its `SKILL.md` (`skills/get`): its frontmatter and file manifest. */
  getSkill(server: string, uri: string, options: CallOptions = {}): Promise<Skill> {
    return this.#operations.getSkill(server, uri, options);
  }

  /** Asks the server for `notifications/resources/updated` on this URI (needs `resources.subscribe`). */
  subscribeResource(server: string, uri: string, options: CallOptions = {}): Promise<void> {
    return this.#operations.subscription('resources/subscribe', server, uri, options);
  }

  unsubscribeResource(server: string, uri: string, options: CallOptions = {}): Promise<void> {
    return this.#operations.subscription('resources/unsubscribe', server, uri, options);
  }

  /**
   * Audits an operation the access policy refused before anything was sent (`PolicyBoundServers`
   * calls this); a registry without audit sinks ignores it.
   */
  recordDenied(actor: NonNullable<CallOptions['actor']>, subject: Omit<AuditSubject, 'actor'>): void {
    this.#audit?.denied({ ...subject, actor: actorOf(actor) });
  }

  /**
   * Audits a provider turn refused whole for an unknown pipeline or agent, before any server was
   * chosen (the provider calls this); a registry without audit sinks ignores it.
   */
  recordRefusedTurn(
    actor: NonNullable<CallOptions['actor']>,
    errorCode: 'UNKNOWN_PIPELINE' | 'UNKNOWN_AGENT',
    principal: string | undefined,
  ): void {
    this.#audit?.refusedTurn(actorOf(actor), errorCode, principal);
  }

  /** Resolves when every audit record written so far has reached its sinks. */
  async flushAudit(): Promise<void> {
    await this.#audit?.flush();
  }

  /** The capabilities the server announced (connects if needed). */
  getServerCapabilities(
    server: string,
    options: Pick<CallOptions, 'principal'> = {},
  ): Promise<ServerCapabilities | undefined> {
    return this.#core.initialized(server, options, (client) => client.getServerCapabilities());
  }

  /**
   * How the server's session keeps pinned content fresh (connects if needed): `notifications`
   * when `resources/subscribe` brings updates, `ttl` when it cannot (no `resources.subscribe`, or
   * a stateless Streamable HTTP server, which keeps no subscription past a request).
   */
  pinUpdates(server: string, options: Pick<CallOptions, 'principal'> = {}): Promise<'notifications' | 'ttl'> {
    return this.#core.initialized(server, options, pinUpdatesOf);
  }

  /** What pinUpdates answered for the open session of `server` (the principal's), undefined before one opened. */
  pinUpdatesOf(server: string, principal?: string): 'notifications' | 'ttl' | undefined {
    return this.#pool.openConnection(server, principal)?.pinUpdates;
  }

  /** The instructions the server sent in `initialize`, if any (connects if needed). */
  getInstructions(server: string, options: Pick<CallOptions, 'principal'> = {}): Promise<string | undefined> {
    return this.#core.initialized(server, options, (client) => client.getInstructions());
  }

  /**
   * Finishes an authorization the user completed after an AUTH_REQUIRED: the code (and state)
   * the host received at its redirect URL are exchanged for tokens, kept in the authorizer's
   * store. The next operation connects with them; repeating the operation that failed is the
   * host's (docs/servers-and-oauth.md, "The hosted path").
   */
  async completeAuthorization(
    server: string,
    answer: AuthorizationAnswer & { readonly principal?: string },
  ): Promise<void> {
    const { principal, ...rest } = answer;
    const lease = await this.#pool.lease(server, principal, 'authorize', {});
    try {
      await lease.connection.completeAuthorization(rest);
    } finally {
      lease.release();
    }
  }

  /**
   * Connects `server` now (a per-user server: the principal's session), forgetting its failures
   * and any backoff: a `failed` server is usable again if this succeeds. Rejects with the
   * connect failure otherwise.
   */
  async reconnect(server: string, options: Pick<CallOptions, 'principal'> = {}): Promise<void> {
    const parsed = parseOptions(callOptionsSchema, options, 'options');
    const lease = await this.#pool.lease(server, parsed.principal, 'initialize', {});
    try {
      await lease.connection.reconnect();
    } catch (error) {
      throw lease.connection.redactError(error);
    } finally {
      lease.release();
    }
  }

  /** Closes every session and stops reconnecting; the registry cannot be used afterwards. */
  async close(): Promise<void> {
    await this.#pool.close();
    this.removeAllListeners();
  }
}

// --- Module helpers ---

/** One log over the configured sinks, or none without sinks (then nothing is audited). */
function auditLogOf(options: ResolvedRegistryOptions): AuditLog | undefined {
  const sinks = options.audit === undefined ? [] : [options.audit].flat();
  if (sinks.length === 0) return undefined;
  return new AuditLog(
    sinks,
    options.onAuditError ??
      ((error) => process.emitWarning(`an audit sink failed: ${String(error)}`, 'AuditWarning')),
  );
}
