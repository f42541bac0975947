import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { shouldFallBackToSse } from './classify-transport-error.js';
import { createTransport, type TransportInputs } from './create-transport.js';
import { onAbort } from './on-abort.js';
import { requestSignal } from './request-signal.js';
import type { McpServerConfig } from './server-config.js';

/** The transport an open session actually uses. */
export type ActiveTransport = 'stdio' | 'http' | 'sse' | 'transport';

export interface OpenedSession {
  readonly client: Client;
  readonly transport: ActiveTransport;
  /** Set when `auto` fell back to SSE: why Streamable HTTP was given up. */
  readonly fallbackReason?: string;
}

/**
 * Connects a new SDK client and initializes the session. `type: "auto"` tries Streamable
 * HTTP first and falls back to SSE only when `shouldFallBackToSse` allows it; any other
 * failure, and a failed fallback, rejects with the original error attached.
 */
export async function connectWithFallback(
  config: McpServerConfig,
  createClient: () => Client,
  timeoutMs: number,
  inputs: TransportInputs = {},
  signal?: AbortSignal,
): Promise<OpenedSession> {
  const kind = transportKindOf(config);
  if (kind !== 'auto') {
    return { client: await connectOnce(createClient, config, timeoutMs, inputs, signal), transport: kind };
  }
  const remote = config as Extract<McpServerConfig, { url: string }>;
  let streamable: Client | undefined;
  const createStreamable = () => {
    streamable = createClient();
    return streamable;
  };
  try {
    return {
      client: await connectOnce(createStreamable, { ...remote, type: 'http' }, timeoutMs, inputs, signal),
      transport: 'http',
    };
  } catch (error) {
    // Client.connect has stored the server's info only if initialize succeeded.
    if (signal?.aborted || !shouldFallBackToSse(error, streamable?.getServerVersion() !== undefined)) {
      throw error;
    }
    const reason = error instanceof Error ? error.message : String(error);
    try {
      const client = await connectOnce(createClient, { ...remote, type: 'sse' }, timeoutMs, inputs, signal);
      return { client, transport: 'sse', fallbackReason: reason };
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

async function connectOnce(
  createClient: () => Client,
  config: McpServerConfig,
  timeoutMs: number,
  inputs: TransportInputs,
  signal: AbortSignal | undefined,
): Promise<Client> {
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
      // `signal` aborts the initialize request; the SDK then closes the transport (an HTTP
      // request is cancelled, a child's stdin ended).
      await client.connect(transport, { timeout: timeoutMs, ...(own && { signal: own.signal }) });
      return client;
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

/** Ends a stdio transport's child process (`pid` is null or absent for any other transport). */
function endChildProcess(pid: unknown): void {
  if (typeof pid !== 'number') return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // Already gone.
  }
}

function isStaleSocket(error: unknown): boolean {
  const cause = error instanceof TypeError ? (error.cause as { code?: unknown } | undefined) : undefined;
  return cause?.code === 'UND_ERR_SOCKET';
}
