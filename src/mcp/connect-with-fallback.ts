import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ContextError } from '../errors.js';
import { shouldFallBackToSse } from './classify-transport-error.js';
import { createTransport, type TransportInputs } from './create-transport.js';
import { endChildProcess } from './end-child-process.js';
import type { EraVerdicts } from './era-verdicts.js';
import type { McpSession } from './mcp-session.js';
import { onAbort } from './on-abort.js';
import { requestSignal } from './request-signal.js';
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
  createClient: () => Client,
  timeoutMs: number,
  inputs: TransportInputs & { readonly modern?: ModernConnector } = {},
  signal?: AbortSignal,
): Promise<OpenedSession> {
  const kind = transportKindOf(config);
  if (kind === 'http' || kind === 'stdio') {
    const legacy = kind === 'http' ? { ...(config as RemoteConfig), type: 'http' as const } : config;
    const opened = await connectEitherEra(legacy, createClient, timeoutMs, inputs, signal);
    return { ...opened, transport: kind };
  }
  if (kind !== 'auto') {
    const opened = await connectOnce(createClient, config, timeoutMs, inputs, signal);
    return { ...opened, transport: kind };
  }
  const remote = config as RemoteConfig;
  let streamable: Client | undefined;
  const createStreamable = () => {
    streamable = createClient();
    return streamable;
  };
  try {
    const opened = await connectEitherEra(
      { ...remote, type: 'http' },
      createStreamable,
      timeoutMs,
      inputs,
      signal,
    );
    return { ...opened, transport: 'http' };
  } catch (error) {
    if (error instanceof NoMutualProtocolVersion) throw error;
    // Client.connect has stored the server's info only if initialize succeeded.
    if (signal?.aborted || !shouldFallBackToSse(error, streamable?.getServerVersion() !== undefined)) {
      throw error;
    }
    const reason = error instanceof Error ? error.message : String(error);
    try {
      const opened = await connectOnce(createClient, { ...remote, type: 'sse' }, timeoutMs, inputs, signal);
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
  createClient: () => Client,
  timeoutMs: number,
  inputs: TransportInputs & { readonly modern?: ModernConnector },
  signal: AbortSignal | undefined,
): Promise<{ client: McpSession; protocolVersion?: string }> {
  const { modern } = inputs;
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
    return await connectOnce(createClient, config, timeoutMs, inputs, signal);
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
 * (a denied endpoint, a reply past its cap) or a timeout (silence over HTTP is an outage, and
 * waiting twice would double it); after anything else, whose 2025 answer says best what is wrong.
 */
function worthInitialize(error: unknown): boolean {
  if (ContextError.isInstance(error)) return false;
  return !(error instanceof McpError && error.code === ErrorCode.RequestTimeout);
}

/**
 * Whether the server itself answered the probe as one that does not speak 2026-07-28: an HTTP
 * status of 400, 404, 405 or 406, a JSON-RPC error, or an answer the v2 client found no modern
 * revision in (a 2025 server's 400 to a request without a session). A network failure, a
 * closed connection or a server error says nothing of its era.
 */
function answeredAsLegacy(error: unknown): boolean {
  if (error instanceof StreamableHTTPError) return [400, 404, 405, 406].includes(error.code ?? 0);
  if (error instanceof McpError) return error.code !== ErrorCode.ConnectionClosed;
  // The v2 client's verdict on the probe's answer; one with a cause failed to get any (fetch failed).
  const { code, data } = error as { code?: unknown; data?: { cause?: unknown } };
  return code === 'ERA_NEGOTIATION_FAILED' && data?.cause === undefined;
}

async function connectOnce(
  createClient: () => Client,
  config: McpServerConfig,
  timeoutMs: number,
  inputs: TransportInputs,
  signal: AbortSignal | undefined,
): Promise<{ client: Client; protocolVersion?: string }> {
  for (let attempt = 0; ; attempt++) {
    const client = createClient();
    // The child of a stdio transport, noted when the signal aborts (the SDK forgets it as it
    // starts closing, and gives it 2 s after stdin ends on an unref'd timer: a host that exits
    // right after close() would leave a server that never answered initialize running).
    let child: unknown;
    const noteChild = () => {
      child = (transport as { pid?: unknown } | undefined)?.pid;
    };
    let transport: Awaited<ReturnType<typeof createTransport>> | undefined;
    const stopNoting = signal && !signal.aborted ? onAbort(signal, noteChild) : undefined;
    // The SDK never removes the listener it adds to the initialize request's signal: a signal
    // of this attempt's own, so the connection's (which lives through every reconnect) keeps none.
    const own = signal && requestSignal(signal);
    try {
      transport = await createTransport(config, inputs);
      // The v1 client tells the transport the revision initialize agreed (it has no getter):
      // noted here for the status.
      let protocolVersion: string | undefined;
      const setProtocolVersion = transport.setProtocolVersion?.bind(transport);
      transport.setProtocolVersion = (version) => {
        protocolVersion = version;
        setProtocolVersion?.(version);
      };
      // `signal` aborts the initialize request; the SDK then closes the transport (an HTTP
      // request is cancelled, a child's stdin ended).
      await client.connect(transport, { timeout: timeoutMs, ...(own && { signal: own.signal }) });
      return { client, ...(protocolVersion !== undefined && { protocolVersion }) };
    } catch (error) {
      await client.close().catch(() => undefined);
      if (signal?.aborted) endChildProcess(child ?? (transport as { pid?: unknown } | undefined)?.pid);
      // A pooled keep-alive socket the server closed (e.g. it restarted) fails the first
      // request; initialize has no effect yet, so it is safe to send once more.
      if (attempt === 0 && isStaleSocket(error)) continue;
      throw error;
    } finally {
      stopNoting?.();
      own?.release();
    }
  }
}

function isStaleSocket(error: unknown): boolean {
  const cause = error instanceof TypeError ? (error.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === 'UND_ERR_SOCKET';
}
