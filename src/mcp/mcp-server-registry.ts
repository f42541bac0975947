import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { EventEmitter } from 'eventemitter3';
import type { z } from 'zod';
import { AuditLog, type AuditMeasure, type AuditSubject, actorOf } from '../audit/audit-log.js';
import type { AuthorizationAnswer } from '../credentials/oauth-authorizer.js';
import { ContextError } from '../errors.js';
import { parseOptions } from '../options/parse-options.js';
import { contentBytes, countItems, namesOf, nothing, resultBytes, validActor } from './audit-measures.js';
import { callOnSession, type SessionRequest, type Traced } from './call-on-session.js';
import { type CappedReadResult, capReadResult } from './cap-read-result.js';
import { collectPages } from './collect-pages.js';
import { detectErrorBody } from './detect-error-body.js';
import {
  type CallOptions,
  type CompleteRequest,
  callOptionsSchema,
  completeRequestSchema,
  type ListOptions,
  listOptionsSchema,
  nameSchema,
  promptArgumentsSchema,
  type ReadOptions,
  readOptionsSchema,
  toolArgumentsSchema,
  uriSchema,
} from './operation-schemas.js';
import { parseSkillEntry } from './parse-skill-entry.js';
import { PrincipalSessions, type SessionLease } from './principal-sessions.js';
import { PromptCatalog } from './prompt-catalog.js';
import { redactReadResult } from './redact-read-result.js';
import {
  type McpServerRegistryOptions,
  type ResolvedRegistryOptions,
  registryOptionsSchema,
} from './registry-options.js';
import type { McpServerConfig } from './server-config.js';
import { type ConnectionEvent, ServerConnection } from './server-connection.js';
import { serverIdentity } from './server-identity.js';
import type { Completion, ServerOperations } from './server-operations.js';
import type { ServerStatus } from './server-status.js';
import {
  getSkillResultSchema,
  listSkillsResultSchema,
  type Skill,
  skillsExtensionId,
} from './skill-schemas.js';
import { toContextError } from './to-context-error.js';

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
 */
export class McpServerRegistry extends EventEmitter<RegistryEvents> implements ServerOperations {
  readonly #options: ResolvedRegistryOptions;
  readonly #connections = new Map<string, ServerConnection>();
  // Listing for an argument check is part of the getPrompt it serves: audited as that, not alone.
  readonly #prompts = new PromptCatalog((server, principal) =>
    this.#listPrompts(server, { all: true, ...(principal !== undefined && { principal }) }),
  );
  /** Per-user servers: one session per principal. */
  readonly #perUser = new Map<string, PrincipalSessions>();
  readonly #audit: AuditLog | undefined;
  /** Each server's identity once known, or its resolution in flight (see identityOf). */
  readonly #identities = new Map<string, string | Promise<string>>();

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
    const sinks = this.#options.audit === undefined ? [] : [this.#options.audit].flat();
    this.#audit =
      sinks.length === 0
        ? undefined
        : new AuditLog(
            sinks,
            this.#options.onAuditError ??
              ((error) => process.emitWarning(`an audit sink failed: ${String(error)}`, 'AuditWarning')),
          );
    const notify = (event: ConnectionEvent) => {
      if (event.type === 'resources-list-changed' || event.type === 'resource-updated') {
        this.#options.telemetry?.recordInvalidation(event.server, event.type);
      } else if (event.type !== 'reconnect-scheduled') {
        this.#prompts.forget(event.server, event.principal);
      }
      (this.emit as (type: string, event: ConnectionEvent) => boolean)(event.type, event);
    };
    for (const [name, config] of Object.entries(this.#options.mcpServers)) {
      const connectionOptions = {
        reconnect: this.#options.reconnect,
        endpointPolicy: this.#options.endpointPolicy,
        connectTimeoutMs: this.#options.requestTimeoutMs,
        maxResponseBytes: this.maxResponseBytes,
        notify,
        ...(this.#options.credentials !== undefined && { credentials: this.#options.credentials }),
        ...(this.#options.authorizer !== undefined && { authorizer: this.#options.authorizer }),
        ...(this.#options.elicitation !== undefined && { elicitation: this.#options.elicitation }),
        ...(this.#options.telemetry !== undefined && { telemetry: this.#options.telemetry }),
      };
      this.#connections.set(name, new ServerConnection(name, config, connectionOptions));
      if (isPerUser(config)) {
        const create = (principal: string) =>
          new ServerConnection(name, config, connectionOptions, principal);
        this.#perUser.set(name, new PrincipalSessions(name, create, this.#options.principalSessions));
      }
    }
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
    return [...this.#connections.keys()];
  }

  has(server: string): boolean {
    return this.#connections.has(server);
  }

  /** Whether `server` is per-user: each principal has its own session, credentials and content. */
  isPerUser(server: string): boolean {
    return this.#perUser.has(server);
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
    const known = this.#identities.get(server);
    if (known !== undefined) return known;
    let identity: string | Promise<string>;
    try {
      identity = serverIdentity(server, this.#configured(server).config, {
        endpointPolicy: this.#options.endpointPolicy,
        maxReadBytes: this.#options.maxReadBytes,
        ...(this.#options.credentials !== undefined && { credentials: this.#options.credentials }),
        ...(this.#options.authorizer !== undefined && { authorizer: this.#options.authorizer }),
      });
    } catch (error) {
      return Promise.reject(error);
    }
    if (typeof identity === 'string') {
      this.#identities.set(server, identity);
      return identity;
    }
    const resolving = identity.then(
      (resolved) => {
        this.#identities.set(server, resolved);
        return resolved;
      },
      (error: unknown) => {
        this.#identities.delete(server);
        throw error;
      },
    );
    this.#identities.set(server, resolving);
    return resolving;
  }

  /**
   * State, last error, last use, server info, capabilities, instructions and counts. A per-user
   * server's status is one principal's (`{ principal }`, else PRINCIPAL_REQUIRED): that
   * principal's open session, or `idle` when none is open; a shared server ignores the principal.
   */
  status(server: string, options: Pick<CallOptions, 'principal'> = {}): ServerStatus {
    const { principal } = parseOptions(callOptionsSchema, options, 'options');
    this.#perUserSessions(server, principal);
    return (this.#openConnection(server, principal) ?? this.#configured(server)).status();
  }

  statuses(): ServerStatus[] {
    return [...this.#connections.values()].map((connection) => connection.status());
  }

  async listResources(
    server: string,
    options: ListOptions = {},
  ): Promise<{ resources: Resource[]; nextCursor?: string }> {
    return this.#audited(
      { server, operation: 'resources/list' },
      options,
      countItems('resources'),
      async () => {
        const { items, nextCursor } = await this.#list(
          server,
          'resources/list',
          options,
          (client, cursor, request, traced) =>
            client.listResources(traced(cursor ? { cursor } : undefined), request).then((result) => ({
              items: result.resources,
              nextCursor: result.nextCursor,
            })),
        );
        return { resources: items, ...(nextCursor !== undefined && { nextCursor }) };
      },
    );
  }

  async listResourceTemplates(
    server: string,
    options: ListOptions = {},
  ): Promise<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string }> {
    const subject = { server, operation: 'resources/templates/list' };
    return this.#audited(subject, options, countItems('resourceTemplates'), async () => {
      const { items, nextCursor } = await this.#list(
        server,
        'resources/templates/list',
        options,
        (client, cursor, request, traced) =>
          client.listResourceTemplates(traced(cursor ? { cursor } : undefined), request).then((result) => ({
            items: result.resourceTemplates,
            nextCursor: result.nextCursor,
          })),
      );
      return { resourceTemplates: items, ...(nextCursor !== undefined && { nextCursor }) };
    });
  }

  async listPrompts(
    server: string,
    options: ListOptions = {},
  ): Promise<{ prompts: Prompt[]; nextCursor?: string }> {
    const subject = { server, operation: 'prompts/list' };
    return this.#audited(subject, options, countItems('prompts'), () => this.#listPrompts(server, options));
  }

  async listTools(
    server: string,
    options: ListOptions = {},
  ): Promise<{ tools: Tool[]; nextCursor?: string }> {
    return this.#audited({ server, operation: 'tools/list' }, options, countItems('tools'), async () => {
      const { items, nextCursor } = await this.#list(
        server,
        'tools/list',
        options,
        (client, cursor, request, traced) =>
          client.listTools(traced(cursor ? { cursor } : undefined), request).then((result) => ({
            items: result.tools,
            nextCursor: result.nextCursor,
          })),
      );
      return { tools: items, ...(nextCursor !== undefined && { nextCursor }) };
    });
  }

  /**
   * Reads one resource, every content item kept as the server sent it, at most `maxBytes` of
   * content (cuts reported in `truncation`). The URI is opaque: it goes to this server's
   * session and nowhere else. A server that reports failure as a `text/plain` "Error: …"
   * body gets RESOURCE_ERROR_BODY (unless its config sets `plainTextErrors: false`).
   */
  async readResource(server: string, uri: string, options: ReadOptions = {}): Promise<CappedReadResult> {
    const subject = { server, operation: 'resources/read', uri: String(uri) };
    return this.#audited(subject, options, contentBytes, () => this.#readResource(server, uri, options));
  }

  async #readResource(server: string, uri: string, options: ReadOptions): Promise<CappedReadResult> {
    const parsedUri = parseOptions(uriSchema, uri, 'uri');
    const parsed = parseOptions(readOptionsSchema, options, 'options');
    return this.#call(
      server,
      'resources/read',
      parsed,
      (client, request, traced) => client.readResource(traced({ uri: parsedUri }), request),
      parsedUri,
      // Redacted with the session that read it: a per-user session knows its principal's tokens.
      (result, connection) => {
        const redacted = redactReadResult(result, connection.redactor);
        const errorBody = connection.config.plainTextErrors ? detectErrorBody(redacted) : undefined;
        if (errorBody !== undefined) {
          throw new ContextError(
            'RESOURCE_ERROR_BODY',
            `server "${server}" answered ${uri} with an error: ${errorBody}`,
            { server, value: uri },
          );
        }
        return capReadResult(redacted, parsed.maxBytes ?? this.#options.maxReadBytes);
      },
    );
  }

  /**
   * Gets a prompt with its messages and roles as the server sent them. Arguments the
   * prompt's listing marks required are checked first (PROMPT_ARGUMENT_MISSING), so a
   * missing one never reaches the server.
   */
  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    const subject = { server, operation: 'prompts/get', prompt: String(name), argumentNames: namesOf(args) };
    return this.#audited(subject, options, resultBytes, async () => {
      const promptName = parseOptions(nameSchema, name, 'name');
      const promptArguments = parseOptions(promptArgumentsSchema, args, 'arguments');
      const parsed = parseOptions(callOptionsSchema, options, 'options');
      this.#perUserSessions(server, parsed.principal);
      await this.#prompts.checkArguments(server, promptName, promptArguments, parsed.principal);
      return this.#call(server, 'prompts/get', parsed, (client, request, traced) =>
        client.getPrompt(traced({ name: promptName, arguments: promptArguments }), request),
      );
    });
  }

  /** Calls a tool. A tool's own failure (`isError: true`) is its result, not an exception. */
  async callTool(
    server: string,
    name: string,
    args: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    const subject = { server, operation: 'tools/call', tool: String(name), argumentNames: namesOf(args) };
    return this.#audited(subject, options, resultBytes, async () => {
      const toolName = parseOptions(nameSchema, name, 'name');
      const toolArguments = parseOptions(toolArgumentsSchema, args, 'arguments');
      const parsed = parseOptions(callOptionsSchema, options, 'options');
      return this.#call(server, 'tools/call', parsed, (client, request, traced) =>
        client.callTool(traced({ name: toolName, arguments: toolArguments }), undefined, request),
      ) as Promise<CallToolResult>;
    });
  }

  /**
   * Candidates for one argument of a resource template or a prompt, given what was typed so far
   * (MCP spec, server/utilities/completion). A server that does not declare `completions` is
   * CAPABILITY_MISSING, asked nothing.
   */
  async complete(server: string, request: CompleteRequest, options: CallOptions = {}): Promise<Completion> {
    const target = request as { template?: unknown; prompt?: unknown; argument?: unknown; context?: unknown };
    const subject = {
      server,
      operation: 'completion/complete',
      ...(typeof target.template === 'string' && { uri: target.template }),
      ...(typeof target.prompt === 'string' && { prompt: target.prompt }),
      argumentNames: [String(target.argument), ...(namesOf(target.context) ?? [])],
    };
    return this.#audited(subject, options, countItems('values'), async () => {
      const parsed = parseOptions(completeRequestSchema, request, 'request');
      const callOptions = parseOptions(callOptionsSchema, options, 'options');
      const ref =
        parsed.template !== undefined
          ? { type: 'ref/resource' as const, uri: parsed.template }
          : { type: 'ref/prompt' as const, name: parsed.prompt ?? '' };
      const { completion } = await this.#call(server, 'completion/complete', callOptions, (client, call) => {
        requireCapability(server, client.getServerCapabilities()?.completions, 'completions');
        return client.complete(
          {
            ref,
            argument: { name: parsed.argument, value: parsed.value },
            ...(parsed.context !== undefined && { context: { arguments: parsed.context } }),
          },
          call,
        );
      });
      return {
        values: completion.values.slice(0, 100),
        ...(completion.total !== undefined && { total: completion.total }),
        ...(completion.hasMore !== undefined && { hasMore: completion.hasMore }),
      };
    });
  }

  /**
   * The skills a server publishes (skills extension `io.modelcontextprotocol/skills`,
   * `skills/list`), each entry checked; CAPABILITY_MISSING when the server does not declare it.
   * An empty or partial listing does not mean a skill is absent: `getSkill` asks by URI.
   */
  async listSkills(
    server: string,
    options: ListOptions = {},
  ): Promise<{ skills: Skill[]; nextCursor?: string }> {
    return this.#audited({ server, operation: 'skills/list' }, options, countItems('skills'), async () => {
      const { items, nextCursor } = await this.#list(
        server,
        'skills/list',
        options,
        async (client, cursor, call) => {
          requireCapability(
            server,
            client.getServerCapabilities()?.extensions?.[skillsExtensionId],
            skillsExtensionId,
          );
          const result = await client.request(
            { method: 'skills/list', params: cursor ? { cursor } : {} },
            listSkillsResultSchema,
            call,
          );
          return { items: result.skills, nextCursor: result.nextCursor };
        },
      );
      const skills = items.map((entry, index) =>
        parseSkillEntry(server, entry, `skills/list entry ${index}`),
      );
      return { skills, ...(nextCursor !== undefined && { nextCursor }) };
    });
  }

  /** One skill's entry by the URI of its `SKILL.md` (`skills/get`): its frontmatter and file manifest. */
  async getSkill(server: string, uri: string, options: CallOptions = {}): Promise<Skill> {
    return this.#audited(
      { server, operation: 'skills/get', uri: String(uri) },
      options,
      nothing,
      async () => {
        const skillUri = parseOptions(uriSchema, uri, 'uri');
        const callOptions = parseOptions(callOptionsSchema, options, 'options');
        const result = await this.#call(server, 'skills/get', callOptions, (client, call) => {
          requireCapability(
            server,
            client.getServerCapabilities()?.extensions?.[skillsExtensionId],
            skillsExtensionId,
          );
          return client.request(
            { method: 'skills/get', params: { uri: skillUri } },
            getSkillResultSchema,
            call,
          );
        });
        const skill = parseSkillEntry(server, result.skill, `skills/get ${skillUri}`);
        if (skill.uri !== skillUri) {
          throw new ContextError(
            'SKILL_INVALID',
            `server "${server}" answered skills/get ${skillUri} with ${skill.uri}`,
            {
              server,
              value: skillUri,
            },
          );
        }
        return skill;
      },
    );
  }

  /** Asks the server for `notifications/resources/updated` on this URI (needs `resources.subscribe`). */
  async subscribeResource(server: string, uri: string, options: CallOptions = {}): Promise<void> {
    await this.#audited({ server, operation: 'resources/subscribe', uri }, options, nothing, () =>
      this.#call(
        server,
        'resources/subscribe',
        options,
        (client, request, traced) => client.subscribeResource(traced({ uri }), request),
        uri,
      ),
    );
  }

  async unsubscribeResource(server: string, uri: string, options: CallOptions = {}): Promise<void> {
    await this.#audited({ server, operation: 'resources/unsubscribe', uri }, options, nothing, () =>
      this.#call(
        server,
        'resources/unsubscribe',
        options,
        (client, request, traced) => client.unsubscribeResource(traced({ uri }), request),
        uri,
      ),
    );
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
  async getServerCapabilities(
    server: string,
    options: Pick<CallOptions, 'principal'> = {},
  ): Promise<ServerCapabilities | undefined> {
    const parsed = parseOptions(callOptionsSchema, options, 'options');
    return this.#call(server, 'initialize', parsed, async (client) => client.getServerCapabilities());
  }

  /** The instructions the server sent in `initialize`, if any (connects if needed). */
  async getInstructions(
    server: string,
    options: Pick<CallOptions, 'principal'> = {},
  ): Promise<string | undefined> {
    const parsed = parseOptions(callOptionsSchema, options, 'options');
    return this.#call(server, 'initialize', parsed, async (client) => client.getInstructions());
  }

  /**
   * Finishes an authorization the user completed after an AUTH_REQUIRED: the code (and state)
   * the host received at its redirect URL are exchanged for tokens, kept in the authorizer's
   * store. The next operation connects with them.
   */
  async completeAuthorization(
    server: string,
    answer: AuthorizationAnswer & { readonly principal?: string },
  ): Promise<void> {
    const { principal, ...rest } = answer;
    const lease = await this.#lease(server, principal, 'authorize', {});
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
    const lease = await this.#lease(server, parsed.principal, 'initialize', {});
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
    await Promise.all([
      ...[...this.#connections.values()].map((connection) => connection.close()),
      ...[...this.#perUser.values()].map((sessions) => sessions.close()),
    ]);
    this.removeAllListeners();
  }

  // --- Internal helpers ---

  /**
   * Every public operation runs through here: one audit record with the caller's actor (the
   * operator unless `options.actor` names a pipeline), and no credential in any error that leaves.
   */
  #audited<T>(
    subject: Omit<AuditSubject, 'actor'>,
    options: CallOptions,
    measure: (result: T) => AuditMeasure,
    run: () => Promise<T>,
  ): Promise<T> {
    const guarded = async () => {
      try {
        return await run();
      } catch (error) {
        const principal = options.principal;
        const connection =
          (principal === undefined ? undefined : this.#perUser.get(subject.server)?.peek(principal)) ??
          this.#connections.get(subject.server);
        throw connection?.redactError(error) ?? error;
      }
    };
    if (!this.#audit) return guarded();
    const actor = actorOf(validActor(options));
    const principal = typeof options.principal === 'string' ? { principal: options.principal } : {};
    return this.#audit.record({ ...subject, ...principal, actor }, guarded, measure);
  }

  async #listPrompts(
    server: string,
    options: ListOptions,
  ): Promise<{ prompts: Prompt[]; nextCursor?: string }> {
    const { items, nextCursor } = await this.#list(
      server,
      'prompts/list',
      options,
      (client, cursor, request, traced) =>
        client.listPrompts(traced(cursor ? { cursor } : undefined), request).then((result) => ({
          items: result.prompts,
          nextCursor: result.nextCursor,
        })),
    );
    return { prompts: items, ...(nextCursor !== undefined && { nextCursor }) };
  }

  /**
   * A per-user server's sessions (PRINCIPAL_REQUIRED when the call names no principal), or
   * undefined for a shared server, which ignores the principal. UNKNOWN_SERVER for no server.
   */
  #perUserSessions(server: string, principal: string | undefined): PrincipalSessions | undefined {
    this.#configured(server);
    const sessions = this.#perUser.get(server);
    if (sessions === undefined) return undefined;
    if (principal === undefined) {
      throw new ContextError(
        'PRINCIPAL_REQUIRED',
        `server "${server}" is per-user: the call must name the principal (the user) it is for`,
        { server, field: 'principal' },
      );
    }
    return sessions;
  }

  /**
   * The connection one request goes to, held until `release()`: the server's one session, or for
   * a per-user server the principal's own, which is not closed while the request runs. Waiting for
   * a principal's session (all `principalSessions.max` busy) ends in SESSIONS_EXHAUSTED, or
   * ABORTED by the caller's signal.
   */
  async #lease(
    server: string,
    principal: string | undefined,
    operation: string,
    bounds: { readonly signal?: AbortSignal; readonly timeoutMs?: number },
  ): Promise<SessionLease> {
    const sessions = this.#perUserSessions(server, principal);
    if (sessions === undefined || principal === undefined) {
      return { connection: this.#configured(server), release: () => undefined };
    }
    try {
      return await sessions.acquire(principal, bounds);
    } catch (error) {
      throw toContextError(error, { server, operation, signal: bounds.signal });
    }
  }

  /** The connection open now for this server and principal, if any (opens none). */
  #openConnection(server: string, principal: string | undefined): ServerConnection | undefined {
    const sessions = this.#perUser.get(server);
    if (sessions === undefined) return this.#connections.get(server);
    return principal === undefined ? undefined : sessions.peek(principal);
  }

  /** The server's shared connection (UNKNOWN_SERVER when no server has that name). */
  #configured(server: string): ServerConnection {
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

  async #call<T, R = T>(
    server: string,
    operation: string,
    options: z.output<typeof callOptionsSchema>,
    run: (client: Client, request: SessionRequest, traced: Traced) => Promise<T>,
    uri?: string,
    finish?: (value: T, connection: ServerConnection) => R,
  ): Promise<R> {
    const config = this.#configured(server).config;
    const started = performance.now();
    const lease = await this.#lease(server, options.principal, operation, {
      ...(options.signal !== undefined && { signal: options.signal }),
      ...(options.timeoutMs !== undefined && { timeoutMs: options.timeoutMs }),
    });
    const connection = lease.connection;
    try {
      // A timeout the caller set (a turn's read timeout) bounds the call, waiting for a session
      // and connecting included: the request gets what is left.
      const timeout =
        options.timeoutMs === undefined
          ? (config.requestTimeoutMs ?? this.#options.requestTimeoutMs)
          : Math.max(1, Math.round(options.timeoutMs - (performance.now() - started)));
      const value = await callOnSession(
        connection,
        operation,
        {
          signal: options.signal,
          timeout,
          timeoutCoversConnect: options.timeoutMs !== undefined,
          telemetry: this.#options.telemetry,
        },
        run,
        uri,
      );
      if (finish !== undefined) return finish(value, connection);
      // Whatever a server sends can echo a credential it was given: listings, prompts, tool
      // results, instructions. A read is redacted by its `finish`, before its byte cap.
      return connection.redactor.redactValue(value).value as unknown as R;
    } finally {
      lease.release();
    }
  }

  async #list<T>(
    server: string,
    operation: string,
    options: ListOptions,
    fetchPage: (
      client: Client,
      cursor: string | undefined,
      request: SessionRequest,
      traced: Traced,
    ) => Promise<{ items: T[]; nextCursor?: string }>,
  ): Promise<{ items: T[]; nextCursor?: string }> {
    const parsed = parseOptions(listOptionsSchema, options, 'options');
    const page = (cursor: string | undefined) =>
      this.#call(server, operation, parsed, (client, request, traced) =>
        fetchPage(client, cursor, request, traced),
      );
    let result: { items: T[]; nextCursor?: string };
    if (parsed.all) {
      const items = await collectPages(page, {
        server,
        operation,
        maxPages: this.#options.maxPages,
        maxItems: this.#options.maxItems,
      });
      result = { items };
    } else {
      result = await page(parsed.cursor);
    }
    // A count is known only for a complete listing.
    if (parsed.cursor === undefined && result.nextCursor === undefined) {
      const count = result.items.length;
      if (operation === 'resources/list')
        this.#openConnection(server, parsed.principal)?.statusRecord.update({ resourceCount: count });
      if (operation === 'prompts/list') {
        this.#openConnection(server, parsed.principal)?.statusRecord.update({ promptCount: count });
      }
    }
    return result;
  }
}

// --- Module helpers ---

/** An operation a server did not declare is refused here, not sent (MCP spec, "Capability Negotiation"). */
function requireCapability(server: string, declared: unknown, capability: string): void {
  if (declared === undefined || declared === null) {
    throw new ContextError('CAPABILITY_MISSING', `server "${server}" does not declare ${capability}`, {
      server,
      field: 'capabilities',
      value: capability,
    });
  }
}

function isPerUser(config: McpServerConfig): boolean {
  return 'url' in config && config.auth?.type === 'oauth' && config.auth.perUser;
}
