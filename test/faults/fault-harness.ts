import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type FaultServerOptions, type FaultTransport, startFaultFixture } from '../../fixtures/index.js';
import type { AttachmentStore } from '../../src/attachments/attachment-store.js';
import { MemoryAttachmentStore } from '../../src/attachments/memory-attachment-store.js';
import type { ContentCacheOptions } from '../../src/cache/content-cache.js';
import { McpServerRegistry, type McpServerRegistryOptions } from '../../src/mcp/mcp-server-registry.js';
import type { McpServerConfigInput } from '../../src/mcp/server-config.js';
import { AccessPolicy, type AccessPolicyOptions } from '../../src/policy/access-policy.js';
import { ResourceContextProvider } from '../../src/provider/resource-context-provider.js';
import type { ProvideResult, TraceEntry } from '../../src/types.js';
import { sharedTokenizer } from '../support/provider-harness.js';

/** The healthy server every case injects from beside the faulty one. */
export const healthyUri = 'fault://healthy';
export const healthyText = 'healthy content that must reach the model';
/** A healthy resource on the faulty server: the recovery turn reads it. */
export const okUri = 'fault://ok';
export const okText = 'the faulty server recovered';

/** Limits every case runs under: short enough to keep the suite fast, long enough for a loaded machine. */
export interface CaseLimits {
  readonly readTimeoutMs: number;
  readonly turnDeadlineMs: number;
}

/**
 * Limits for cases whose fault is not a timeout: long enough that a loaded machine never turns a
 * healthy read (or a stdio child starting through tsx) into a timeout. A case about timeouts sets
 * the one it is about short.
 */
export const generousLimits: CaseLimits = { readTimeoutMs: 20_000, turnDeadlineMs: 40_000 };

/** A healthy server, a faulty one, a registry, a provider; `close()` ends them all. */
export interface FaultWorld {
  readonly servers: McpServerRegistry;
  readonly provider: ResourceContextProvider;
  readonly fixture: Awaited<ReturnType<typeof startFaultFixture>>;
  /** A turn with the healthy attachment and these of the faulty server, under the case's limits. */
  turn(uris: readonly string[], extra?: { maxTokens?: number }): Promise<ProvideResult>;
  /** The same, through a second provider on the same registry with generous limits: did it recover? */
  laterTurn(uris: readonly string[]): Promise<ProvideResult>;
  close(): Promise<void>;
}

export interface WorldOptions {
  readonly transport: FaultTransport;
  readonly server: FaultServerOptions;
  readonly limits?: CaseLimits;
  /** Changes the faulty server's config (headers, env, another URL). */
  readonly config?: (config: McpServerConfigInput) => McpServerConfigInput;
  readonly registry?: Omit<McpServerRegistryOptions, 'mcpServers'>;
  readonly policy?: AccessPolicyOptions;
  /** The pin store (default: a memory store). */
  readonly attachments?: AttachmentStore;
  /** Each provider's content cache options, e.g. `{ shared }` for the fleet's tier (default: no cache). */
  readonly cache?: ContentCacheOptions;
}

/**
 * Starts the faulty server as `options.server` says (plus `fault://ok`), the healthy in-process
 * one, and a provider whose pipeline `support` is bound to both.
 */
export async function startFaultWorld(options: WorldOptions): Promise<FaultWorld> {
  const limits = options.limits ?? generousLimits;
  const healthy = await startFaultFixture('memory', {
    resources: { [healthyUri]: { kind: 'text', text: healthyText } },
  });
  const fixture = await startFaultFixture(options.transport, {
    ...options.server,
    resources: { [okUri]: { kind: 'text', text: okText }, ...options.server.resources },
  });
  const faultyConfig = options.config ? options.config(fixture.serverConfig) : fixture.serverConfig;
  const servers = new McpServerRegistry({
    mcpServers: { healthy: healthy.serverConfig, faulty: faultyConfig },
    // A closed session is reopened on next use: the later turn is what recovers it (a background
    // loop would respawn a crash-looping stdio child all through the case).
    reconnect: false,
    requestTimeoutMs: limits.turnDeadlineMs,
    ...options.registry,
  });
  const policy = new AccessPolicy(
    options.policy ?? { bindings: { support: { servers: ['healthy', 'faulty'] } } },
  );
  const createProvider = (providerLimits: CaseLimits) =>
    new ResourceContextProvider({
      servers,
      attachments: options.attachments ?? new MemoryAttachmentStore(),
      policy,
      tokenizer: sharedTokenizer,
      budget: { maxTokens: 8000 },
      readTimeoutMs: providerLimits.readTimeoutMs,
      turnDeadlineMs: providerLimits.turnDeadlineMs,
      cache: options.cache ?? false,
    });
  const provider = createProvider(limits);
  const laterProvider = createProvider(generousLimits);
  const turnOn = (target: ResourceContextProvider, uris: readonly string[], maxTokens?: number) =>
    target.provide({
      pipelineId: 'support',
      message: {
        attachments: [
          { server: 'healthy', uri: healthyUri },
          ...uris.map((uri) => ({ server: 'faulty', uri })),
        ],
      },
      ...(maxTokens !== undefined && { budget: { maxTokens } }),
    });
  return {
    servers,
    provider,
    fixture,
    turn: (uris, extra = {}) => turnOn(provider, uris, extra.maxTokens),
    laterTurn: (uris) => turnOn(laterProvider, uris),
    close: async () => {
      provider.dispose();
      laterProvider.dispose();
      await servers.close();
      await Promise.all([healthy.close(), fixture.close()]);
    },
  };
}

/** The trace entry of one attachment. */
export function entryOf(result: ProvideResult, server: string, uri: string): TraceEntry {
  const entry = result.trace.entries.find((item) => item.server === server && item.uri === uri);
  if (!entry) throw new Error(`no trace entry for ${server} ${uri}`);
  return entry;
}

/** Everything the model gets, as one string. */
export function renderedText(result: ProvideResult): string {
  return result.blocks.map((block) => block.text).join('\n');
}

/** Unhandled rejections and uncaught exceptions while the suite runs. */
export function watchProcess(): { readonly problems: unknown[]; stop(): void } {
  const problems: unknown[] = [];
  const onProblem = (error: unknown) => problems.push(error);
  process.on('unhandledRejection', onProblem);
  process.on('uncaughtException', onProblem);
  return {
    problems,
    stop: () => {
      process.off('unhandledRejection', onProblem);
      process.off('uncaughtException', onProblem);
    },
  };
}

/** `gc()` without a flag on the command line (V8 honours the flag for contexts created later). */
export function exposedGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

let collect: (() => void) | undefined;

/** Live heap after full collections (three, so weak references a first one leaves settle too). */
export function liveHeap(): number {
  collect ??= exposedGc();
  for (let round = 0; round < 3; round++) collect();
  return process.memoryUsage().heapUsed;
}
