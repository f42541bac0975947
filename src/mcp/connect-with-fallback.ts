import { ContextError } from '../errors.js';
import { httpStatusOf, refusedCredentials, shouldFallBackToSse } from './classify-transport-error.js';
import { FailedAfterInitialize } from './client-session.js';
import type { EraVerdicts } from './era-verdicts.js';
import type { McpSession } from './mcp-session.js';
import { RpcError, rpcErrorCodes } from './rpc-error.js';
import type { McpServerConfig } from './server-config.js';
import { supportedVersionsOf } from './unsupported-protocol-version.js';

/** The transport an open session actually uses. */
export type ActiveTransport = 'stdio' | 'http' | 'sse' | 'transport';

export interface OpenedSession {
  readonly client: McpSession;
  readonly transport: ActiveTransport;
  /** The revision the session speaks (`2025-11-25`, `2026-07-28`, …), when the transport was told it. */
  readonly protocolVersion?: string;
  /** Set when `auto` fell back to SSE: why Streamable HTTP was given up. */
  readonly fallbackReason?: string;
}

/**
 * How a server of the 2026-07-28 revision (Streamable HTTP or stdio) is reached: the v2 client,
 * pinned to one of the revisions the server named.
 */
export interface ModernConnector {
  readonly verdicts: EraVerdicts;
  /** What the verdict is kept under: the endpoint's URL, or a stdio server's command line (see eraKeyOf). */
  readonly endpoint: string;
  /** The revisions the v2 client speaks beyond 2025 (`2026-07-28`), newest last. */
  readonly versions: readonly string[];
  /**
   * Whether an endpoint of unknown era is asked `server/discover` before the 2025 `initialize`
   * (Streamable HTTP without OAuth): a dual-era server is then reached on its modern leg.
   */
  readonly probe: boolean;
  readonly connect: (protocolVersion: string) => Promise<McpSession>;
}

/** A modern-only server named revisions this client does not speak. */
export class NoMutualProtocolVersion extends Error {
  override readonly name = 'NoMutualProtocolVersion';
  constructor(
    readonly supported: readonly string[],
    readonly spoken: readonly string[],
  ) {
    super(
      `the server speaks only ${supported.join(', ') || 'no revision it named'}; this client speaks ${spoken.join(', ')}`,
    );
  }
}

/**
 * Opens a 2025 session (`initialize`) over the transport `config` names (`type` is `http` or
 * `sse` by then, never `auto`), with the revision it negotiated. Rejects with
 * FailedAfterInitialize when the server answered `initialize` and the opening failed after it.
 */
export type LegacyOpener = (
  config: McpServerConfig,
) => Promise<{ client: McpSession; protocolVersion?: string }>;

/**
 * Connects a new SDK client and initializes the session. `type: "auto"` tries Streamable
 * HTTP first and falls back to SSE only when `shouldFallBackToSse` allows it; any other
 * failure, and a failed fallback, rejects with the original error attached.
 *
 * Over Streamable HTTP an endpoint of unknown era is first asked `server/discover` (the v2
 * client, see ModernConnector.probe): a dual-era or modern-only server is reached on its
 * 2026-07-28 leg, and a 2025 server, which answers it as an unknown request, with `initialize`
 * (and is not probed again for an hour). Over stdio, a server that refuses the 2025
 * `initialize` with `-32022` and names a 2026-07-28 revision in `data.supported` is reached with
 * `modern` in a new child, the refused one having been closed. Either verdict is kept: the next
 * session to that endpoint or command starts there.
 */
export async function connectWithFallback(
  config: McpServerConfig,
  openLegacy: LegacyOpener,
  modern?: ModernConnector,
  signal?: AbortSignal,
): Promise<OpenedSession> {
  const kind = transportKindOf(config);
  if (kind === 'http' || kind === 'stdio') {
    const legacy = kind === 'http' ? { ...(config as RemoteConfig), type: 'http' as const } : config;
    const opened = await unwrapped(connectEitherEra(legacy, openLegacy, modern, signal));
    return { ...opened, transport: kind };
  }
  if (kind !== 'auto') {
    const opened = await unwrapped(connectOnce(openLegacy, config));
    return { ...opened, transport: kind };
  }
  const remote = config as RemoteConfig;
  try {
    const opened = await connectEitherEra({ ...remote, type: 'http' }, openLegacy, modern, signal);
    return { ...opened, transport: 'http' };
  } catch (error) {
    // A server that answered initialize is a Streamable HTTP one, whatever failed after it.
    if (error instanceof FailedAfterInitialize) throw error.failure;
    if (error instanceof NoMutualProtocolVersion) throw error;
    if (signal?.aborted || !shouldFallBackToSse(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    try {
      const opened = await unwrapped(connectOnce(openLegacy, { ...remote, type: 'sse' }));
      return { ...opened, transport: 'sse', fallbackReason: reason };
    } catch (sseError) {
      const message = sseError instanceof Error ? sseError.message : String(sseError);
      throw new Error(`Streamable HTTP failed (${reason}), and so did SSE (${message})`, { cause: sseError });
    }
  }
}

export function transportKindOf(config: McpServerConfig): ActiveTransport | 'auto' {
  if ('createTransport' in config) return 'transport';
  if ('command' in config) return 'stdio';
  return config.type;
}

// --- Internal helpers ---

type RemoteConfig = Extract<McpServerConfig, { url: string }>;

/**
 * The v2 client for an endpoint known to be modern, or probed and found so; else the 2025
 * handshake, whose `-32022` refusal naming a revision both sides speak moves to the v2 client.
 * Verdicts are kept (EraVerdicts).
 */
async function connectEitherEra(
  config: McpServerConfig,
  openLegacy: LegacyOpener,
  modern: ModernConnector | undefined,
  signal: AbortSignal | undefined,
): Promise<{ client: McpSession; protocolVersion?: string }> {
  const known = modern?.verdicts.modernVersionOf(modern.endpoint);
  if (modern !== undefined && known !== undefined) {
    try {
      return { client: await modern.connect(known), protocolVersion: known };
    } catch (error) {
      // A verdict can go stale (the server was replaced): the next attempt starts from 2025 again.
      modern.verdicts.forget(modern.endpoint);
      throw error;
    }
  }
  if (modern?.probe === true && !modern.verdicts.isLegacy(modern.endpoint)) {
    try {
      return await connectModern(modern, modern.versions[modern.versions.length - 1] as string);
    } catch (error) {
      if (signal?.aborted) throw error;
      const supported = supportedVersionsOf(error);
      if (supported !== undefined) return connectSupported(modern, supported);
      if (!worthInitialize(error)) throw error;
      // A 2025 server answers an unknown method so: not asked again for a while.
      if (answeredAsLegacy(error)) modern.verdicts.recordLegacy(modern.endpoint);
    }
  }
  try {
    return await connectOnce(openLegacy, config);
  } catch (error) {
    const supported = modern === undefined || signal?.aborted ? undefined : supportedVersionsOf(error);
    if (modern === undefined || supported === undefined) throw error;
    return connectSupported(modern, supported);
  }
}

/** The v2 client at `version`; the endpoint's verdict kept as modern. */
async function connectModern(
  modern: ModernConnector,
  version: string,
): Promise<{ client: McpSession; protocolVersion: string }> {
  const client = await modern.connect(version);
  modern.verdicts.recordModern(modern.endpoint, version);
  return { client, protocolVersion: version };
}

/** After a `-32022`: the v2 client at the newest revision both sides speak, if there is one. */
function connectSupported(
  modern: ModernConnector,
  supported: readonly string[],
): Promise<{ client: McpSession; protocolVersion: string }> {
  const spoken = modern.versions;
  const version = [...spoken].reverse().find((candidate) => supported.includes(candidate));
  if (version === undefined) throw new NoMutualProtocolVersion(supported, spoken);
  return connectModern(modern, version);
}

/**
 * Whether a failed probe leaves the 2025 `initialize` worth trying: not after our own refusal
 * (a denied endpoint, a reply past its cap), a timeout (silence over HTTP is an outage, and
 * waiting twice would double it) or a refused authorization (the v2 transport already authorized
 * once and was refused again: initialize would only fetch another token to be refused); after
 * anything else, whose 2025 answer says best what is wrong.
 */
function worthInitialize(error: unknown): boolean {
  if (ContextError.isInstance(error)) return false;
  if (refusedCredentials(error)) return false;
  return !(error instanceof RpcError && error.code === rpcErrorCodes.requestTimeout);
}

/**
 * Whether the server itself answered the probe as one that does not speak 2026-07-28: an HTTP
 * status of 400, 404, 405 or 406, a JSON-RPC error, or an answer the v2 client found no modern
 * revision in (a 2025 server's 400 to a request without a session). A network failure, a
 * closed connection or a server error says nothing of its era.
 */
function answeredAsLegacy(error: unknown): boolean {
  const status = httpStatusOf(error);
  if (status !== undefined) return [400, 404, 405, 406].includes(status);
  if (error instanceof RpcError) return error.code !== rpcErrorCodes.connectionClosed;
  // The v2 client's verdict on the probe's answer; one with a cause failed to get any (fetch failed).
  const { code, data } = error as { code?: unknown; data?: { cause?: unknown } };
  return code === 'ERA_NEGOTIATION_FAILED' && data?.cause === undefined;
}

/** What failed, for the caller: a FailedAfterInitialize is told apart only in here. */
function unwrapped<T>(opening: Promise<T>): Promise<T> {
  return opening.catch((error: unknown) => {
    throw error instanceof FailedAfterInitialize ? error.failure : error;
  });
}

/**
 * One 2025 opening, tried once more on a stale keep-alive socket (never after the server
 * answered initialize: the session it opened may exist).
 */
async function connectOnce(
  openLegacy: LegacyOpener,
  config: McpServerConfig,
): Promise<{ client: McpSession; protocolVersion?: string }> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await openLegacy(config);
    } catch (error) {
      // A pooled keep-alive socket the server closed (e.g. it restarted) fails the first
      // request; initialize has no effect yet, so it is safe to send once more.
      if (attempt === 0 && isStaleSocket(error)) continue;
      throw error;
    }
  }
}

function isStaleSocket(error: unknown): boolean {
  const cause = error instanceof TypeError ? (error.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === 'UND_ERR_SOCKET';
}
