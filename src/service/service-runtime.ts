import type { AuditRecord, AuditSink } from '../audit.js';
import { JsonlAuditSink } from '../audit.js';
import { type ContextConfig, defaultServiceSettings, type ServiceSettings } from '../config.js';
import {
  AccessPolicy,
  type AttachmentStore,
  McpServerRegistry,
  type McpServerRegistryOptions,
  MemoryAttachmentStore,
  ResourceContextProvider,
} from '../index.js';
import type { RedisSharedTier } from '../redis.js';
import { ServiceState } from './service-state.js';
import { ServiceTenants } from './service-tenants.js';

/** The budget when the config gives none (as the CLI's `provide`). */
const defaultMaxTokens = 8000;

export interface ServiceRuntimeOptions {
  readonly config: ContextConfig;
  /** The pin store; default: the config's PostgreSQL or SQLite store, else pins in memory. */
  readonly store?: AttachmentStore;
  /** Extra registry options (the CLI's OAuth authorizer); audit sinks are the service's. */
  readonly registryOptions?: Omit<McpServerRegistryOptions, 'mcpServers' | 'audit'>;
  /** Where service keys named by `keyEnv` are read; default process.env. */
  readonly environment?: NodeJS.ProcessEnv;
  /** Default audit destination (refusals and failures) without `service.auditFile`. */
  readonly stderr?: NodeJS.WritableStream;
  /** Builds the OpenAPI document (on first request). */
  readonly openApiDocument: () => unknown;
}

/**
 * What the service works with, opened once: the registry, the policy, the pin store, the
 * provider over them (with the fleet's shared tier when the config names Redis), the tenants
 * and the audit sink. Built only from the library's public API, as a host would build it.
 */
export interface ServiceRuntime {
  readonly config: ContextConfig;
  readonly settings: ServiceSettings;
  readonly servers: McpServerRegistry;
  readonly policy: AccessPolicy;
  readonly store: AttachmentStore;
  readonly provider: ResourceContextProvider;
  readonly shared: RedisSharedTier | undefined;
  readonly tenants: ServiceTenants;
  /** Where refusals are recorded (the registry's own operations go to it too). */
  readonly audit: AuditSink;
  readonly state: ServiceState;
  /** Disposes the provider, closes every session and the shared tier, and the store when it was opened here. */
  close(): Promise<void>;
}

export async function openServiceRuntime(options: ServiceRuntimeOptions): Promise<ServiceRuntime> {
  const { config } = options;
  const settings = config.service ?? defaultServiceSettings;
  const tenants = new ServiceTenants(
    settings,
    { pipelines: Object.keys(config.bindings), agents: Object.keys(config.agents ?? {}) },
    options.environment,
  );
  const audit = settings.auditFile
    ? new JsonlAuditSink(settings.auditFile)
    : refusalsTo(options.stderr ?? process.stderr);
  const servers = new McpServerRegistry({
    mcpServers: config.mcpServers,
    ...config.registry,
    ...options.registryOptions,
    audit: [audit],
  });
  const policy = new AccessPolicy({
    bindings: config.bindings,
    ...(config.agents && { agents: config.agents }),
  });
  const ownsStore = options.store === undefined;
  const store = options.store ?? (await openStore(config));
  // Loaded only when the config names Redis (`ioredis` is an optional peer).
  const shared = config.redis && new (await import('../redis.js')).RedisSharedTier(config.redis);
  // Unreachable at start: turns go on alone (traced as such) and /readyz says so.
  await shared?.ready(2_000).catch(() => undefined);
  const provider = new ResourceContextProvider({
    servers,
    attachments: store,
    policy,
    budget: config.budget ?? { maxTokens: defaultMaxTokens },
    ...((config.cache || shared) && { cache: { ...config.cache, ...(shared && { shared }) } }),
    ...(config.serverInstructions !== undefined && { serverInstructions: config.serverInstructions }),
    ...(config.readTimeoutMs !== undefined && { readTimeoutMs: config.readTimeoutMs }),
    ...(config.turnDeadlineMs !== undefined && { turnDeadlineMs: config.turnDeadlineMs }),
    ...(config.tokenizers && { tokenizers: config.tokenizers }),
    ...(config.skills !== undefined && { skills: config.skills }),
  });
  const state = new ServiceState(options.openApiDocument);
  provider.on('injected', (trace) => {
    state.metrics.recordTurn(trace);
    state.traces.emit('trace', trace);
  });
  return {
    config,
    settings,
    servers,
    policy,
    store,
    provider,
    shared,
    tenants,
    audit,
    state,
    async close() {
      provider.dispose();
      await Promise.allSettled([servers.close(), shared?.close(), ownsStore ? store.close?.() : undefined]);
      await (audit as { flush?: () => Promise<void> }).flush?.();
    },
  };
}

// --- Internal helpers ---

async function openStore(config: ContextConfig): Promise<AttachmentStore> {
  const caps = config.budget?.minTokens !== undefined ? { minTokens: config.budget.minTokens } : {};
  if (config.postgres) {
    const { PostgresAttachmentStore } = await import('../postgres.js');
    return PostgresAttachmentStore.open({ ...config.postgres, ...caps });
  }
  if (config.store !== undefined) {
    const { SqliteAttachmentStore } = await import('../sqlite.js');
    return new SqliteAttachmentStore(config.store, caps);
  }
  return new MemoryAttachmentStore();
}

/** Without an audit file: what was refused or failed, one JSON line each on stderr. */
function refusalsTo(stream: NodeJS.WritableStream): AuditSink {
  return {
    write(record: AuditRecord) {
      if (record.status !== 'ok') stream.write(`${JSON.stringify({ audit: record })}\n`);
    },
  };
}
