import type { FetchLike, RequestOptions, Transport, Client as V2Client } from '@modelcontextprotocol/client';
import { ContextError, causeWhere } from '../errors.js';
import { createModernTransport, type ModernEndpoint } from './create-modern-transport.js';
import { endChildProcess } from './end-child-process.js';
import { askedInputOf, InputRequiredError } from './input-required-error.js';
import { ListenSubscriptions } from './listen-subscriptions.js';
import type { McpSession } from './mcp-session.js';
import { onAbort } from './on-abort.js';
import { raceAbort } from './race-abort.js';
import { type InputAnswerer, maxInputRounds, readAnsweringInput } from './read-answering-input.js';
import { requestSignal } from './request-signal.js';
import { RpcError, rpcErrorCodes } from './rpc-error.js';

/** Which opening the v2 client makes, and to what. */
export type SessionTarget =
  /** A 2026-07-28 session, pinned to the revision the server offered or a verdict names. */
  | { readonly era: 'modern'; readonly protocolVersion: string; readonly endpoint: ModernEndpoint }
  /** The 2025 `initialize` handshake, on the transport the config names (create-transport.ts). */
  | { readonly era: 'legacy'; readonly transport: () => Promise<Transport> };

export interface SessionConnectInput {
  readonly target: SessionTarget;
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly capabilities: Record<string, unknown>;
  /** Registers notification and request handlers before connecting (v2 method-name handlers). */
  readonly setup?: (client: V2Client) => void;
  /** Answers the elicitations a `resources/read` asks for in-band (`input_required`). */
  readonly answerInput?: InputAnswerer;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/**
 * A session on the MCP SDK v2 client, of either era: a 2026-07-28 one over Streamable HTTP or
 * stdio, pinned to the revision the server offered, or a 2025 one opened with `initialize` over
 * any transport. The client is imported here, lazily: the library's root entry does not load it.
 *
 * `signal` ends the connect: the opening request is cancelled, the client closed, and a stdio
 * child that never answered is ended (the SDK forgets it as it starts closing).
 */
export async function connectSession(input: SessionConnectInput): Promise<ClientSession> {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const { target, signal } = input;
  const client = new Client(input.clientInfo, {
    capabilities: input.capabilities,
    ...(target.era === 'modern' && { versionNegotiation: { mode: { pin: target.protocolVersion } } }),
    // The bound of our own read loop, for the tools and prompts the SDK's driver answers.
    inputRequired: { maxRounds: maxInputRounds },
  });
  input.setup?.(client);
  let connecting = true;
  let transport: Transport | undefined;
  // A stdio child, noted when the signal aborts: the SDK forgets it as it starts closing.
  let child: unknown;
  const stopNoting =
    signal && !signal.aborted
      ? onAbort(signal, () => {
          child = (transport as { pid?: unknown } | undefined)?.pid;
        })
      : undefined;
  try {
    if (target.era === 'modern') {
      const { endpoint } = target;
      transport = await createModernTransport(
        endpoint.kind === 'http' && signal !== undefined
          ? { ...endpoint, fetch: abortedWith(endpoint.fetch, signal, () => connecting) }
          : endpoint,
      );
    } else {
      transport = await target.transport();
    }
    // Raced as well: the v2 client's connect-time server/discover does not end when the signal
    // aborts, and a server that never answers it would hold close() for the whole connect timeout.
    await raceAbort(
      client.connect(transport, {
        timeout: input.timeoutMs,
        ...(signal && { signal }),
      }),
      signal,
    );
  } catch (error) {
    await client.close().catch(() => undefined);
    if (signal?.aborted) endChildProcess(child ?? (transport as { pid?: unknown } | undefined)?.pid);
    const failure = classifiable(error);
    if (target.era === 'legacy' && initializeAnswered(transport)) throw new FailedAfterInitialize(failure);
    throw failure;
  } finally {
    connecting = false;
    stopNoting?.();
  }
  return new ClientSession(client, {
    ackTimeoutMs: input.timeoutMs,
    streamableHttp: transport instanceof StreamableHTTPClientTransport,
    ...(input.answerInput !== undefined && { answerInput: input.answerInput }),
  });
}

/**
 * A 2025 connect that failed after the server answered `initialize` (sending
 * `notifications/initialized`, say): `failure` is what failed, as the registry classifies it.
 * Its own type because it decides something: such a server is a Streamable HTTP one, so `auto`
 * does not fall back to SSE, and the opening is not sent again (it had its effect).
 * connectWithFallback unwraps it: no caller above it sees this type.
 */
export class FailedAfterInitialize extends Error {
  override readonly name = 'FailedAfterInitialize';
  constructor(readonly failure: unknown) {
    super(failure instanceof Error ? failure.message : String(failure), { cause: failure });
  }
}

/**
 * Whether the server answered `initialize` with a revision the client accepted: the v2 client
 * hands that revision to a Streamable HTTP transport (`protocolVersion`) before it sends
 * `notifications/initialized`. Asked of the transport because the client forgets its own
 * record (`getServerVersion()`) in the close that follows a failed handshake.
 */
function initializeAnswered(transport: Transport | undefined): boolean {
  return (transport as { protocolVersion?: unknown } | undefined)?.protocolVersion !== undefined;
}

/**
 * `fetch` whose requests made while `connecting()` also end when `signal` aborts: the v2
 * client's connect-time server/discover is not cancelled by the connect's signal, and a server
 * that holds it would keep the request (and its socket) open after the connect was given up.
 */
function abortedWith(fetch: FetchLike, signal: AbortSignal, connecting: () => boolean): FetchLike {
  return async (url, init) => {
    if (!connecting()) return fetch(url, init);
    const own = requestSignal(signal);
    try {
      const signals = init?.signal ? [init.signal, own.signal] : [own.signal];
      return await fetch(url, { ...init, signal: AbortSignal.any(signals) });
    } finally {
      own.release();
    }
  };
}

/**
 * The v2 client, of either era, behind the v1 `Client` methods the registry calls (`McpSession`). Lists and
 * reads are sent as plain requests, one page each: paging, bounds and caching stay ours (the
 * v2 list verbs would walk every page and cache by their own rules). Its errors become the
 * RpcErrors the registry classifies, so a timeout is still READ_TIMEOUT and a not-found still
 * RESOURCE_NOT_FOUND.
 */
export class ClientSession implements McpSession {
  readonly #client: V2Client;
  /** The session's `subscriptions/listen` stream: made on the first subscribe, on 2026-07-28 only. */
  #listens: ListenSubscriptions | undefined;
  readonly #ackTimeoutMs: number | undefined;
  readonly #tools = new ListedTools();
  readonly #answerInput: InputAnswerer | undefined;
  /** Whether the session runs over Streamable HTTP (where a 2025 session may be stateless). */
  readonly streamableHttp: boolean;

  /**
   * `ackTimeoutMs`: how long a `subscriptions/listen` waits for the server's acknowledgement;
   * `answerInput`: who answers the elicitations a read asks for (none: such a read fails).
   */
  constructor(
    client: V2Client,
    options: { ackTimeoutMs?: number; answerInput?: InputAnswerer; streamableHttp?: boolean } = {},
  ) {
    this.#client = client;
    this.#ackTimeoutMs = options.ackTimeoutMs;
    this.#answerInput = options.answerInput;
    this.streamableHttp = options.streamableHttp ?? false;
  }

  /** The revision this session speaks (`2025-11-25`, `2026-07-28`, …). */
  get protocolVersion(): string | undefined {
    return this.#client.getNegotiatedProtocolVersion();
  }

  /** Whether the session is a 2026-07-28 one (stateless, `subscriptions/listen`), not a 2025 one. */
  get modern(): boolean {
    return this.#client.getDiscoverResult() !== undefined;
  }

  get transport(): { readonly sessionId?: string | undefined } | undefined {
    return this.#client.transport;
  }

  get onclose(): (() => void) | undefined {
    return this.#client.onclose;
  }
  set onclose(handler: (() => void) | undefined) {
    this.#client.onclose = handler;
  }

  get onerror(): ((error: Error) => void) | undefined {
    return this.#client.onerror;
  }
  set onerror(handler: ((error: Error) => void) | undefined) {
    this.#client.onerror = handler;
  }

  // Input a read asks for is answered here, not by the v2 client's own driver: a result that
  // took rounds must never be cached (it says so in `inputRounds`), the rounds are bounded
  // tighter, and what could not be answered becomes a typed INPUT_REQUIRED.
  readResource: McpSession['readResource'] = (params, options) =>
    readAnsweringInput(
      (retry) => this.#send({ method: 'resources/read', params: retry }, options, true),
      params as Record<string, unknown>,
      this.#answerInput,
      requestOptions(options).signal,
    );

  listResources: McpSession['listResources'] = (params, options) =>
    this.#send({ method: 'resources/list', params }, options);

  listResourceTemplates: McpSession['listResourceTemplates'] = (params, options) =>
    this.#send({ method: 'resources/templates/list', params }, options);

  listPrompts: McpSession['listPrompts'] = (params, options) =>
    this.#send({ method: 'prompts/list', params }, options);

  listTools: McpSession['listTools'] = async (params, options) => {
    const page = await this.#send<Awaited<ReturnType<McpSession['listTools']>>>(
      { method: 'tools/list', params },
      options,
    );
    this.#tools.note(page.tools);
    return page;
  };

  getPrompt: McpSession['getPrompt'] = (params, options) =>
    this.#send({ method: 'prompts/get', params }, options);

  // With the tool's definition as the session last listed it: the v2 client mirrors its
  // x-mcp-header arguments into Mcp-Param-* headers (SEP-2243) only from a definition it holds,
  // and our lists are plain requests that its own tools cache never sees.
  callTool: McpSession['callTool'] = (params, options) => {
    const toolDefinition = this.#tools.get(params.name);
    const callOptions = {
      ...requestOptions(options),
      ...(toolDefinition !== undefined && { toolDefinition }),
    };
    return translated(this.#client.callTool(params as never, callOptions as never)) as never;
  };

  complete: McpSession['complete'] = (params, options) =>
    this.#send({ method: 'completion/complete', params }, options);

  request: McpSession['request'] = (request, resultSchema, options) =>
    translated(
      this.#client.request(request as never, resultSchema as never, requestOptions(options)),
    ) as never;

  // 2026-07-28 has no resources/subscribe: subscriptions/listen replaces it, one stream per
  // session whose filter is every URI subscribed here (see ListenSubscriptions).
  subscribeResource: McpSession['subscribeResource'] = (params, options) =>
    this.modern
      ? translated(
          this.#listening()
            .subscribe(params.uri)
            .then(() => ({})),
        )
      : this.#send({ method: 'resources/subscribe', params }, options);

  unsubscribeResource: McpSession['unsubscribeResource'] = (params, options) =>
    this.modern
      ? translated(
          this.#listening()
            .unsubscribe(params.uri)
            .then(() => ({})),
        )
      : this.#send({ method: 'resources/unsubscribe', params }, options);

  getServerCapabilities: McpSession['getServerCapabilities'] = () =>
    this.#client.getServerCapabilities() as ReturnType<McpSession['getServerCapabilities']>;

  getServerVersion: McpSession['getServerVersion'] = () =>
    this.#client.getServerVersion() as ReturnType<McpSession['getServerVersion']>;

  getInstructions: McpSession['getInstructions'] = () => this.#client.getInstructions();

  close = async (): Promise<void> => {
    await this.#listens?.close().catch(() => undefined);
    await this.#client.close();
  };

  #listening(): ListenSubscriptions {
    this.#listens ??= new ListenSubscriptions(this.#client, this.#ackTimeoutMs);
    return this.#listens;
  }

  /** `allowInputRequired`: an `input_required` answer is returned, not fulfilled by the SDK. */
  #send<T>(
    request: { method: string; params?: object | undefined },
    options: unknown,
    allowInputRequired = false,
  ): Promise<T> {
    const message = {
      method: request.method,
      ...(request.params !== undefined && { params: request.params as Record<string, unknown> }),
    };
    const sendOptions = { ...requestOptions(options), ...(allowInputRequired && { allowInputRequired }) };
    return translated(this.#client.request(message as never, sendOptions)) as Promise<T>;
  }
}

// --- Internal helpers ---

type ListedTool = Awaited<ReturnType<McpSession['listTools']>>['tools'][number];

// A server's listing is untrusted: the definitions kept for callTool are bounded.
const maxListedTools = 1_000;

/** The tools the session's listings named, by name, the newest listing's winning; at most maxListedTools. */
class ListedTools {
  readonly #byName = new Map<string, ListedTool>();

  note(tools: readonly ListedTool[]): void {
    for (const tool of tools) {
      this.#byName.delete(tool.name);
      this.#byName.set(tool.name, tool);
      if (this.#byName.size > maxListedTools) this.#byName.delete(this.#byName.keys().next().value as string);
    }
  }

  get(name: string): ListedTool | undefined {
    return this.#byName.get(name);
  }
}

/** The caller's bounds only: the rest of the v1 options have no counterpart the registry uses. */
function requestOptions(options: unknown): RequestOptions {
  const { signal, timeout } = (options ?? {}) as { signal?: AbortSignal; timeout?: number };
  return { ...(signal !== undefined && { signal }), ...(timeout !== undefined && { timeout }) };
}

function translated<T>(pending: Promise<T>): Promise<T> {
  return pending.catch((error: unknown) => {
    throw classifiable(error);
  });
}

/** v2's SDK error codes that the registry knows by their JSON-RPC codes. */
const sdkErrorCodes: Readonly<Record<string, number>> = {
  REQUEST_TIMEOUT: rpcErrorCodes.requestTimeout,
  CONNECTION_CLOSED: rpcErrorCodes.connectionClosed,
  NOT_CONNECTED: rpcErrorCodes.connectionClosed,
};

/**
 * A v2 error as the registry classifies it: a JSON-RPC error (v2 `ProtocolError`, a number code)
 * or a timeout or closed connection (v2 `SdkError`, a string code) is an `RpcError`. Anything
 * else (an HTTP failure, `SdkHttpError`, read by its `data.status`; an invalid result; a network
 * failure; our own ContextError from the fetch) passes as it is.
 */
function classifiable(error: unknown): unknown {
  if (!(error instanceof Error) || error instanceof RpcError) return error;
  // Our fetch's own refusals (ENDPOINT_DENIED, LIMIT_EXCEEDED …) come wrapped in the SDK's
  // (a failed probe is ERA_NEGOTIATION_FAILED): they say exactly what went wrong, as on 2025.
  const own = causeWhere(error, ContextError.isInstance);
  if (own !== undefined) return own;
  const { code, data } = error as { code?: unknown; data?: unknown };
  if (typeof code === 'number')
    return withCause(new RpcError(code, withoutPrefix(error.message), data), error);
  if (typeof code !== 'string') return error;
  // A tool or prompt whose server was still asking when the SDK's driver gave up.
  if (code === 'INPUT_REQUIRED_ROUNDS_EXCEEDED') {
    const { rounds, lastResult } = (data ?? {}) as {
      rounds?: unknown;
      lastResult?: { inputRequests?: unknown };
    };
    return withCause(
      new InputRequiredError(
        askedInputOf(lastResult?.inputRequests),
        'rounds',
        typeof rounds === 'number' ? rounds : maxInputRounds,
      ),
      error,
    );
  }
  const rpcCode = sdkErrorCodes[code];
  if (rpcCode !== undefined) return withCause(new RpcError(rpcCode, error.message, data), error);
  return error;
}

function withoutPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, '');
}

function withCause<T extends Error>(translated: T, cause: Error): T {
  Object.defineProperty(translated, 'cause', { value: cause, configurable: true, writable: true });
  return translated;
}
