import type { ElicitRequest, Client as V2Client } from '@modelcontextprotocol/client';
import { metadataIssuerMismatchOf } from '../credentials/check-metadata-issuer.js';
import { configuredSecrets, type SecretBearingConfig } from '../credentials/configured-secrets.js';
import type { CredentialSource } from '../credentials/credential-source.js';
import type { AuthorizationAnswer, OAuthAuthorizer } from '../credentials/oauth-authorizer.js';
import { resolveTransportAuth, type TransportAuth } from '../credentials/resolve-transport-auth.js';
import { resourceMismatchOf } from '../credentials/resource-mismatch.js';
import { SecretRedactor } from '../credentials/secret-redactor.js';
import { ContextError } from '../errors.js';
import { inSpan, type Telemetry } from '../trace/telemetry.js';
import { packageVersion } from '../version.js';
import { answerElicitation, type ElicitationHandler } from './answer-elicitation.js';
import { httpStatusOf, isStdioMessageOverflow } from './classify-transport-error.js';
import { connectSession, type SessionTarget } from './client-session.js';
import {
  connectWithFallback,
  type LegacyOpener,
  type ModernConnector,
  transportKindOf,
} from './connect-with-fallback.js';
import { createEndpointFetch } from './create-endpoint-fetch.js';
import type { ModernEndpoint } from './create-modern-transport.js';
import { createTransport, stdioEnvironment, type TransportInputs } from './create-transport.js';
import { checkEndpoint, type EndpointPolicy } from './endpoint-policy.js';
import { EraVerdicts } from './era-verdicts.js';
import type { McpSession } from './mcp-session.js';
import { pinUpdatesOf } from './pin-updates-of.js';
import { raceAbort } from './race-abort.js';
import type { ReconnectPolicy } from './reconnect-schedule.js';
import { nextReconnectDelay } from './reconnect-schedule.js';
import { rejectUnexpectedReplies } from './reject-unexpected-replies.js';
import { requestSignal } from './request-signal.js';
import type { McpServerConfig } from './server-config.js';
import { type ConnectionState, type ServerStatus, ServerStatusRecord } from './server-status.js';
import { sessionIdOf } from './session-id-of.js';
import { StderrTail } from './stderr-tail.js';
import { oneLine, summarizeFailure } from './summarize-failure.js';

export type { ConnectionState } from './server-status.js';

/**
 * What a session tells its owner, as it happens. A per-user server's events name the principal
 * whose session it was: what changed is that principal's view, and only theirs.
 */
export type ConnectionEvent = (
  | { readonly type: 'session-opened'; readonly server: string }
  | { readonly type: 'session-closed'; readonly server: string }
  | { readonly type: 'resources-list-changed'; readonly server: string }
  | { readonly type: 'resource-updated'; readonly server: string; readonly uri: string }
  | { readonly type: 'prompts-list-changed'; readonly server: string }
  | {
      readonly type: 'reconnect-scheduled';
      readonly server: string;
      /** Consecutive failures so far (failed connects, sessions that closed soon after opening). */
      readonly failures: number;
      readonly delayMs: number;
      /** `maxFailures` reached: the server is `failed` and rests `failedRetryMs`. */
      readonly failed: boolean;
    }
) & { readonly principal?: string };

export interface ConnectionOptions {
  readonly reconnect: ReconnectPolicy | false;
  readonly endpointPolicy: EndpointPolicy;
  /** Timeout of the initialize handshake, in milliseconds. */
  readonly connectTimeoutMs: number;
  /**
   * Most bytes of one HTTP response body (one event of a stream) read from a remote server, and
   * of one message from a stdio server.
   */
  readonly maxResponseBytes: number;
  readonly notify: (event: ConnectionEvent) => void;
  /** Where `{ secret: "name" }` references in `auth` are looked up. */
  readonly credentials?: CredentialSource;
  /** The host's part of OAuth authorization-code flows. */
  readonly authorizer?: OAuthAuthorizer;
  /** Answers the server's elicitation requests; without it the capability is not declared. */
  readonly elicitation?: ElicitationHandler;
  /** A span per reconnect attempt. */
  readonly telemetry?: Telemetry;
  /** Which endpoints are known to speak only 2026-07-28 (shared by every session of a registry). */
  readonly eraVerdicts?: EraVerdicts;
}

export type { ElicitationHandler, ElicitationRequest, ElicitResult } from './answer-elicitation.js';

/** Failures that already say exactly what went wrong; not wrapped as CONNECT_FAILED. */
const ownConnectFailures = new Set([
  'ENDPOINT_DENIED',
  'CREDENTIAL_MISSING',
  'CREDENTIAL_FILE_INVALID',
  'AUTH_REQUIRED',
  'AUTH_FAILED',
  'AUTH_RESOURCE_MISMATCH',
  'AUTH_STEP_UP_FAILED',
  'INVALID_OPTION',
]);

const clientInfo = { name: 'mcp-resource-context', version: packageVersion };

/**
 * The revisions past 2025 the v2 client negotiates (stateless: no initialize, `server/discover`,
 * `_meta` on every request), oldest first. The SDK keeps its list internal: this one moves with
 * the dependency.
 */
const modernProtocolVersions: readonly string[] = ['2026-07-28'];

/**
 * One MCP session with one server: connected on first use, one SDK `Client`. When the
 * session closes it is reopened in the background with exponential backoff (or on the next
 * use, whichever comes first), and `session-opened` fires again.
 */
export class ServerConnection {
  readonly name: string;
  readonly config: McpServerConfig;
  /** The host's user this session is for (per-user servers only). */
  readonly principal: string | undefined;
  readonly #status: ServerStatusRecord;
  readonly #options: ConnectionOptions;
  /** Every credential this server's sessions have used, kept out of errors and statuses. */
  readonly #redactor = new SecretRedactor();
  readonly #eraVerdicts: EraVerdicts;
  #closed = false;
  /** Aborted by close(): ends a connect in flight (an unanswered initialize included). */
  readonly #lifetime = new AbortController();
  #connecting: Promise<McpSession> | undefined;
  #client: McpSession | undefined;
  #reconnectTimer: NodeJS.Timeout | undefined;
  /**
   * Consecutive failures: failed connects, plus sessions that died soon after opening (a server
   * that accepts initialize and then drops every session must not be re-initialized at the
   * first delay forever). Reset by a session that lived `stableSessionMs`, or by `reconnect()`.
   */
  #failures = 0;
  /** The last connect failure, named when calls are refused while backing off. */
  #lastFailure: ContextError | undefined;
  #openedAt = 0;
  /** Why a session closed, when the client side closed it (a stdio message past the limit). */
  readonly #closeCauses = new WeakMap<McpSession, ContextError>();

  constructor(name: string, config: McpServerConfig, options: ConnectionOptions, principal?: string) {
    this.name = name;
    this.config = config;
    this.principal = principal;
    this.#options = options;
    this.#eraVerdicts = options.eraVerdicts ?? new EraVerdicts();
    this.#status = new ServerStatusRecord(name, transportKindOf(config));
    for (const secret of configuredSecrets(config as SecretBearingConfig)) this.#redactor.add(secret);
  }

  get state(): ConnectionState {
    return this.#status.state;
  }

  /** The MCP revision the current or last session speaks (`2025-11-25`, `2026-07-28`, …). */
  get protocolVersion(): string | undefined {
    return this.#status.protocolVersion;
  }

  /**
   * What the server sent (instructions, server info, errors) can echo a credential, and an error
   * can quote a URL with its userinfo: neither is here.
   */
  status(): ServerStatus {
    return this.#redactor.redactShownValue(this.#status.snapshot()).value;
  }

  /** Knows every credential of this server's config and sessions: removes them from what it sent. */
  get redactor(): SecretRedactor {
    return this.#redactor;
  }

  /** How the open session keeps pinned content fresh (see pinUpdatesOf); undefined without one. */
  get pinUpdates(): 'notifications' | 'ttl' | undefined {
    return this.#client ? pinUpdatesOf(this.#client) : undefined;
  }

  /** The transport's session id (Streamable HTTP `Mcp-Session-Id`) while a session is open. */
  get sessionId(): string | undefined {
    return this.#client?.transport?.sessionId;
  }

  /** Facts learnt from operations (counts, errors) go into the status here. */
  get statusRecord(): ServerStatusRecord {
    return this.#status;
  }

  /**
   * The connected client when a session is open now, else undefined (then `client()` connects):
   * a call on an open session needs no wait, so none is raced against a timer.
   */
  get openClient(): McpSession | undefined {
    return this.#closed ? undefined : this.#client;
  }

  /**
   * The connected client; connects once, however many callers ask at the same time. While the
   * server is backing off after repeated failures, or is `failed`, it throws at once instead.
   */
  async client(): Promise<McpSession> {
    if (this.#closed) throw this.#closedError();
    if (this.#client) return this.#client;
    if (this.#connecting === undefined) {
      const refusal = this.#backoffRefusal();
      if (refusal) throw refusal;
    }
    if (this.#connecting === undefined) {
      const connecting = this.#connect().finally(() => {
        if (this.#connecting === connecting) this.#connecting = undefined;
      });
      this.#connecting = connecting;
    }
    return this.#connecting;
  }

  /**
   * The session behind `client` is gone (the server forgot it, or the network failed): close
   * it, so that the reconnect loop or the next use opens a new one.
   */
  invalidate(client: McpSession): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    void client.close().catch(() => undefined);
  }

  /**
   * Why the session behind `client` was closed by this side, if it was: the failure its
   * pending requests stand for (they only learn "Connection closed").
   */
  closeCauseOf(client: McpSession): ContextError | undefined {
    return this.#closeCauses.get(client);
  }

  /** A copy of `error` without any credential this server's sessions have used. */
  redactError<T>(error: T): T {
    return this.#redactor.redactError(error);
  }

  /**
   * Hands the SDK the code the user's authorization brought back (the host received it at its
   * redirect URL after an AUTH_REQUIRED): tokens are fetched and stored; the next use connects.
   */
  async completeAuthorization(answer: AuthorizationAnswer): Promise<void> {
    if (!('url' in this.config) || this.config.auth?.type !== 'oauth') {
      throw new ContextError('INVALID_OPTION', `server "${this.name}" does not use OAuth authorization`, {
        server: this.name,
        field: 'auth',
      });
    }
    const auth = await this.#resolveAuth(this.config);
    try {
      await auth.completeAuthorization?.(answer);
    } catch (error) {
      throw this.#redactor.redactError(error);
    }
  }

  /**
   * Forgets the failures and any scheduled wait (a `failed` server included) and connects now:
   * what an operator does after fixing a server.
   */
  async reconnect(): Promise<void> {
    if (this.#closed) throw this.#closedError();
    this.#failures = 0;
    this.#lastFailure = undefined;
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    this.#status.clear('nextReconnectAt');
    this.#status.update({
      consecutiveFailures: 0,
      ...(this.#status.state === 'failed' && { state: 'error' }),
    });
    await this.client();
  }

  /** Closes the session and stops reconnecting; no timer or handle is left behind. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#lifetime.abort(this.#closedError());
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    this.#status.update({ state: 'closed' });
    this.#status.clear('nextReconnectAt');
    const client = this.#client ?? (await this.#connecting?.catch(() => undefined));
    this.#client = undefined;
    await client?.close();
  }

  // --- Internal helpers ---

  async #connect(): Promise<McpSession> {
    this.#status.update({ state: 'connecting' });
    let opened: Awaited<ReturnType<typeof connectWithFallback>>;
    // What a stdio child of this attempt writes to stderr: a failed connect says its last words.
    const stderrTail = new StderrTail();
    try {
      let auth: TransportAuth | undefined;
      const signal = this.#lifetime.signal;
      if ('url' in this.config) {
        await raceAbort(checkEndpoint(this.config.url, this.#options.endpointPolicy, this.name), signal);
        auth = await raceAbort(this.#resolveAuth(this.config), signal);
      }
      const timeout = this.config.requestTimeoutMs ?? this.#options.connectTimeoutMs;
      const modern = await this.#modernConnector(auth, timeout, signal, stderrTail);
      const inputs = {
        ...(auth !== undefined && { auth }),
        maxMessageBytes: this.#options.maxResponseBytes,
        stderrTail,
      };
      const openLegacy = this.#legacyOpener(inputs, timeout, signal);
      opened = await connectWithFallback(this.config, openLegacy, modern, signal);
      // A server that drops the session as soon as initialize is answered (a crash loop) has
      // closed it before `onclose` below is ours: that is a failed connect, not a session.
      if (opened.client.transport === undefined) {
        throw new Error('the server closed the session right after initialize');
      }
    } catch (thrown) {
      if (this.#closed) {
        this.#connecting = undefined;
        this.#status.update({ state: 'closed' });
        throw this.#closedError();
      }
      // A server or proxy may echo request headers in its error body: no credential goes further.
      // The SDK's own OAuth flows (client credentials, cross-app access) throw a plain Error.
      const refusal = resourceMismatchOf(thrown, this.name) ?? metadataIssuerMismatchOf(thrown, this.name);
      const error = this.#redactor.redactError(refusal ?? thrown);
      const failure =
        ContextError.isInstance(error) && ownConnectFailures.has(error.code)
          ? error
          : connectFailure(this.name, error, this.#redactor.redactText(stderrTail.text()));
      this.#status.update({ state: this.#closed ? 'closed' : 'error' });
      this.#status.recordError(failure);
      // Configuration, credentials and authorization wait for the host, not for time: they are
      // not retried in the background (each use tries again).
      // Settled now: whoever the failure wakes (a reconnect-scheduled listener) finds no
      // attempt in flight to join.
      this.#connecting = undefined;
      if (!ownConnectFailures.has(failure.code)) {
        this.#failures++;
        this.#lastFailure = failure;
        this.#status.update({
          reconnectAttempts: this.#status.snapshot().reconnectAttempts + 1,
          consecutiveFailures: this.#failures,
        });
        // One more failure: the wait already scheduled (if any) grows to the new one.
        clearTimeout(this.#reconnectTimer);
        this.#reconnectTimer = undefined;
        this.#scheduleReconnect();
      }
      throw failure;
    }
    const { client } = opened;
    client.onclose = () => this.#onClose(client);
    // MCP spec, "Session Management": a 404 to a request carrying our session id means the
    // server forgot the session (e.g. it restarted); the GET stream reports it here. A
    // stateless server issues no session id and refuses the optional GET stream with 404 or
    // 405: that is "no stream", and the session stays.
    client.onerror = (error) => {
      if (httpStatusOf(error) === 404 && sessionIdOf(client) !== undefined) this.invalidate(client);
      // Reported before the SDK closes the session: the requests it fails learn why.
      if (isStdioMessageOverflow(error)) this.#closeCauses.set(client, this.#messageTooLarge());
    };
    if (this.#closed) {
      await client.close();
      throw this.#closedError();
    }
    this.#client = client;
    this.#openedAt = Date.now();
    this.#lastFailure = undefined;
    clearTimeout(this.#reconnectTimer);
    this.#reconnectTimer = undefined;
    this.#status.clear('nextReconnectAt');
    this.#status.update({
      state: 'connected',
      transport: opened.transport,
      connectedAt: new Date().toISOString(),
      serverInfo: client.getServerVersion(),
      capabilities: client.getServerCapabilities(),
      instructions: client.getInstructions(),
      ...(opened.protocolVersion !== undefined && { protocolVersion: opened.protocolVersion }),
      reconnectAttempts: 0,
    });
    this.#options.notify({ type: 'session-opened', server: this.name, ...this.#principalField() });
    return client;
  }

  #onClose(client: McpSession): void {
    if (this.#client === client) this.#client = undefined;
    const policy = this.#options.reconnect;
    const lived = Date.now() - this.#openedAt;
    this.#failures = policy !== false && lived < policy.stableSessionMs ? this.#failures + 1 : 0;
    if (!this.#closed) this.#status.update({ state: 'disconnected', consecutiveFailures: this.#failures });
    // Scheduled first, so a `session-closed` listener sees when the next attempt comes.
    this.#scheduleReconnect();
    this.#options.notify({ type: 'session-closed', server: this.name, ...this.#principalField() });
  }

  #scheduleReconnect(): void {
    const policy = this.#options.reconnect;
    if (policy === false || this.#closed || this.#reconnectTimer !== undefined) return;
    const failures = this.#failures;
    const { delayMs, failed } = nextReconnectDelay(failures, policy);
    this.#status.update({
      nextReconnectAt: new Date(Date.now() + delayMs).toISOString(),
      ...(failed && { state: 'failed' }),
    });
    this.#reconnectTimer = setTimeout(() => {
      this.#reconnectTimer = undefined;
      this.#status.clear('nextReconnectAt');
      if (this.#closed || this.#client) return;
      // A failed attempt schedules the next one itself (in #connect).
      inSpan(
        this.#options.telemetry,
        'mcp-context reconnect',
        {
          'mcp_context.server': this.name,
          'mcp_context.reconnect.attempt': this.#status.snapshot().reconnectAttempts + 1,
        },
        () => this.client(),
      ).catch(() => undefined);
    }, delayMs);
    // A host that forgets close() must still be able to exit.
    this.#reconnectTimer.unref();
    this.#options.notify({
      type: 'reconnect-scheduled',
      server: this.name,
      failures,
      delayMs,
      failed,
      ...this.#principalField(),
    });
  }

  /**
   * One failure is a blip (a restart, a dropped socket): the next use reconnects at once. After
   * more, only the schedule tries, so that turns cannot respawn a crash-looping server; once
   * `maxFailures` is reached the server is `failed` (SERVER_FAILED) until its long rest is over
   * or `reconnect()` is called.
   */
  #backoffRefusal(): ContextError | undefined {
    const policy = this.#options.reconnect;
    if (policy === false || this.#reconnectTimer === undefined || this.#failures < 2) return undefined;
    const next = this.#status.snapshot().nextReconnectAt;
    const last = this.#lastFailure === undefined ? '' : ` (last: ${this.#lastFailure.message})`;
    const details = { server: this.name, value: this.#failures };
    if (this.#failures >= policy.maxFailures) {
      return new ContextError(
        'SERVER_FAILED',
        `server "${this.name}" failed ${this.#failures} times in a row${last}; it is tried again at ${next}, or at once with reconnect("${this.name}")`,
        details,
        this.#lastFailure,
      );
    }
    return new ContextError(
      'CONNECT_FAILED',
      `server "${this.name}" failed ${this.#failures} times in a row${last}; the next attempt is at ${next}`,
      details,
      this.#lastFailure,
    );
  }

  #principalField(): { principal?: string } {
    return this.principal === undefined ? {} : { principal: this.principal };
  }

  #resolveAuth(config: Extract<McpServerConfig, { url: string }>): Promise<TransportAuth> {
    const policy = this.#options.endpointPolicy;
    return resolveTransportAuth(config.auth, config.headers, {
      server: this.name,
      serverUrl: config.url,
      redactor: this.#redactor,
      fetchFor: (tls) =>
        createEndpointFetch({
          policy,
          server: this.name,
          ...(tls !== undefined && { tls }),
          maxResponseBytes: this.#options.maxResponseBytes,
          onStreamTooLarge: (error) => this.#onStreamTooLarge(error),
        }),
      ...(this.principal !== undefined && { principal: this.principal }),
      ...(this.#options.authorizer !== undefined && { authorizer: this.#options.authorizer }),
      ...(this.#options.credentials !== undefined && { credentials: this.#options.credentials }),
    });
  }

  /**
   * The v2 client for a server of the 2026-07-28 revision, with everything the 2025 transport
   * has: over Streamable HTTP the same fetch (endpoint policy per hop, byte caps, mTLS, OAuth),
   * headers and credentials; over stdio the same command, environment, working directory and
   * message cap; the same timeout and lifetime signal. None for an in-process transport (and an
   * SSE-only server, which is 2025 by definition).
   */
  async #modernConnector(
    auth: TransportAuth | undefined,
    timeoutMs: number,
    signal: AbortSignal,
    stderrTail: StderrTail,
  ): Promise<ModernConnector | undefined> {
    const config = this.config;
    const endpoint = await this.#modernEndpoint(auth, stderrTail);
    const key = EraVerdicts.endpointOf(config);
    if (endpoint === undefined || key === undefined) return undefined;
    return {
      verdicts: this.#eraVerdicts,
      endpoint: key,
      versions: modernProtocolVersions,
      // With a token provider too (client credentials, cross-app access): the probe's transport
      // and the 2025 one are handed the same provider, so the token the probe's 401 fetched is
      // the one initialize carries.
      probe: endpoint.kind === 'http',
      connect: (protocolVersion) =>
        this.#openSession({ era: 'modern', protocolVersion, endpoint }, timeoutMs, signal),
    };
  }

  /** The 2025 opening: `initialize` over the transport the config names, built with `inputs`. */
  #legacyOpener(inputs: TransportInputs, timeoutMs: number, signal: AbortSignal): LegacyOpener {
    return async (config) => {
      const client = await this.#openSession(
        { era: 'legacy', transport: () => createTransport(config, inputs) },
        timeoutMs,
        signal,
      );
      const { protocolVersion } = client;
      return { client, ...(protocolVersion !== undefined && { protocolVersion }) };
    };
  }

  /**
   * A session on the v2 client, of either era, with this server's handlers and capabilities
   * (declared only for what the host handles: MCP spec, client features).
   */
  async #openSession(target: SessionTarget, timeoutMs: number, signal: AbortSignal) {
    const elicitation = this.#options.elicitation;
    // The connect's own signal: the lifetime signal outlives every session, and the SDK leaves
    // its listener on the opening request's signal.
    const own = requestSignal(signal);
    try {
      return await connectSession({
        target,
        clientInfo,
        capabilities: elicitation === undefined ? {} : { elicitation: { form: { applyDefaults: true } } },
        setup: (client) => this.#listen(client),
        ...(elicitation !== undefined && {
          answerInput: answerElicitation(elicitation, this.name, this.principal),
        }),
        timeoutMs,
        signal: own.signal,
      });
    } finally {
      own.release();
    }
  }

  /** Where a modern session of this server goes, built as the 2025 transport is (create-transport.ts). */
  async #modernEndpoint(
    auth: TransportAuth | undefined,
    stderrTail: StderrTail,
  ): Promise<ModernEndpoint | undefined> {
    const config = this.config;
    if ('url' in config) {
      if (auth === undefined) return undefined;
      return {
        kind: 'http',
        url: config.url,
        fetch: rejectUnexpectedReplies(auth.fetch, config.url),
        headers: auth.headers,
        ...(auth.authProvider !== undefined && { authProvider: auth.authProvider }),
      };
    }
    if (!('command' in config)) return undefined;
    return {
      kind: 'stdio',
      command: config.command,
      args: config.args,
      env: await stdioEnvironment(config.env),
      ...(config.cwd !== undefined && { cwd: config.cwd }),
      maxMessageBytes: this.#options.maxResponseBytes,
      stderrTail,
    };
  }

  /**
   * A legacy HTTP+SSE session's replies all come on its GET stream: one event past the cap
   * loses a reply nobody can name, so the session closes and its waiting requests fail with
   * the cause. (A Streamable HTTP GET stream answers no request: the SDK opens it again.)
   */
  #onStreamTooLarge(error: ContextError): void {
    const client = this.#client;
    if (client === undefined || this.#status.snapshot().transport !== 'sse') return;
    this.#closeCauses.set(client, error);
    this.invalidate(client);
  }

  #messageTooLarge(): ContextError {
    const limit = this.#options.maxResponseBytes;
    return new ContextError(
      'LIMIT_EXCEEDED',
      `server "${this.name}" sent a message over ${limit} bytes (maxResponseBytes): the session was closed`,
      { server: this.name, field: 'maxResponseBytes', value: limit },
    );
  }

  #closedError(): ContextError {
    return new ContextError('SESSION_CLOSED', `server "${this.name}": the registry is closed`, {
      server: this.name,
    });
  }

  /**
   * Our own handlers, registered by method name before connect() so nothing sent during the
   * opening is missed. (The SDK's `listChanged` client option would re-list only the first page
   * and replace these; it is not used.) On 2026-07-28 notifications come only on the session's
   * `subscriptions/listen` stream (ListenSubscriptions), and the server asks for input in-band
   * (`input_required`): for tools and prompts the v2 client answers through the elicitation
   * handler; a read's input is answered by ClientSession's own loop (readAnsweringInput), which
   * is handed the same handler. A 2025 server asks with an `elicitation/create` request.
   */
  #listen(client: V2Client): void {
    const on = this.#notificationHandlers();
    client.setNotificationHandler('notifications/resources/list_changed', on.resourcesListChanged);
    client.setNotificationHandler('notifications/resources/updated', (notification) =>
      on.resourceUpdated(notification.params.uri),
    );
    client.setNotificationHandler('notifications/prompts/list_changed', on.promptsListChanged);
    const elicitation = this.#options.elicitation;
    if (elicitation === undefined) return;
    client.setRequestHandler('elicitation/create', (request, context) =>
      elicitation({
        server: this.name,
        ...(this.principal !== undefined && { principal: this.principal }),
        params: request.params as ElicitRequest['params'],
        signal: context.mcpReq.signal,
      }),
    );
  }

  #notificationHandlers() {
    const server = this.name;
    const principal = this.#principalField();
    const notify = this.#options.notify;
    // MCP spec, server/resources "List Changed Notification" and "Subscriptions".
    return {
      resourcesListChanged: () => {
        this.#status.clear('resourceCount');
        notify({ type: 'resources-list-changed', server, ...principal });
      },
      resourceUpdated: (uri: string) => notify({ type: 'resource-updated', server, uri, ...principal }),
      promptsListChanged: () => {
        this.#status.clear('promptCount');
        notify({ type: 'prompts-list-changed', server, ...principal });
      },
    };
  }
}

// --- Internal helpers ---

/**
 * CONNECT_FAILED in one short line (the HTTP status, the first schema issue, never a body), and a
 * stdio server's last stderr output (redacted), where it wrote any.
 */
function connectFailure(server: string, error: unknown, stderr = ''): ContextError {
  const summary = summarizeFailure(error, 'initialize');
  const status = summary.httpStatus ?? httpStatusOf(error);
  const reason = ContextError.isInstance(error) ? oneLine(error.message, 200) : summary.reason;
  const flat = oneLine(stderr, stderr.length + 1);
  // Its last words: what a server says before it exits ends its output.
  const said =
    flat === '' ? '' : `; its stderr ended with: ${flat.length > 300 ? `…${flat.slice(-299)}` : flat}`;
  return new ContextError(
    'CONNECT_FAILED',
    `could not connect to server "${server}": ${reason}${said}`,
    { server, ...(status !== undefined && { value: status, httpStatus: status }) },
    error,
  );
}
