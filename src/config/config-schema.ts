import { z } from 'zod';
import { cacheOptionsSchema } from '../cache/content-cache.js';
import { registrySettingsShape } from '../mcp/registry-options.js';
import { providerSettingsShape } from '../provider/provider-options.js';
import { skillLimitsSchema } from '../skills/skill-limits.js';
import { serviceSettingsSchema } from './service-settings.js';

/** The McpServerRegistry's data settings as the file may give them: as written, defaults left to the registry. */
const registryFileSettings = {
  requestTimeoutMs: registrySettingsShape.requestTimeoutMs.unwrap().optional(),
  maxPages: registrySettingsShape.maxPages.unwrap().optional(),
  maxItems: registrySettingsShape.maxItems.unwrap().optional(),
  maxReadBytes: registrySettingsShape.maxReadBytes.unwrap().optional(),
  maxResponseBytes: registrySettingsShape.maxResponseBytes,
  reconnect: registrySettingsShape.reconnect.unwrap().optional(),
  principalSessions: registrySettingsShape.principalSessions.unwrap().optional(),
  endpointPolicy: registrySettingsShape.endpointPolicy.unwrap().optional(),
} satisfies Record<keyof typeof registrySettingsShape, z.ZodType>;

/** The top-level keys that are McpServerRegistry options. */
export const registrySettingKeys = Object.keys(registryFileSettings) as (keyof typeof registryFileSettings)[];

/**
 * The shape of `mcp-context.json`. Every section is the library's own schema (nothing here
 * restates a rule): `budget`, `serverInstructions`, `readTimeoutMs`, `turnDeadlineMs`, `tokenizers` and
 * `skills` are the ResourceContextProvider's, `cache` is the ContentCache's, and
 * `requestTimeoutMs`, `maxPages`, `maxItems`, `maxReadBytes`, `maxResponseBytes`, `reconnect`,
 * `principalSessions`, `endpointPolicy` are the McpServerRegistry's. Server entries and bindings are
 * only checked for shape here: the McpServerRegistry and the AccessPolicy validate them (see
 * parse-context-config.ts), so the file accepts exactly what the library accepts.
 */
export const configFileSchema = z.strictObject({
  /** Editors use it to find a JSON schema; ignored here. */
  $schema: z.string().optional(),
  /** The `mcpServers` object of common MCP hosts (stdio `command`, or `type` "http" | "sse" with `url`). */
  mcpServers: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  /** Access-policy bindings, keyed by pipeline id (the AccessPolicy options' `bindings`). */
  bindings: z.record(z.string(), z.unknown()).default({}),
  /** Access-policy bindings keyed by agent id (the AccessPolicy options' `agents`). */
  agents: z.record(z.string(), z.unknown()).optional(),
  budget: providerSettingsShape.budget.optional(),
  cache: cacheOptionsSchema.optional(),
  serverInstructions: providerSettingsShape.serverInstructions.unwrap().optional(),
  readTimeoutMs: providerSettingsShape.readTimeoutMs.unwrap().optional(),
  turnDeadlineMs: providerSettingsShape.turnDeadlineMs.unwrap().optional(),
  /** Tokenizer files (the provider's `tokenizers`); paths relative to the config file. */
  tokenizers: providerSettingsShape.tokenizers,
  /** Caps on skills loaded from skill pins (the provider's `skills`). */
  skills: skillLimitsSchema.optional(),
  ...registryFileSettings,
  /**
   * The pin store: an SQLite file path (relative to the config file), `{ "sqlite": path }`, or
   * `{ "postgres": { connectionString, schema, … } }` for several replicas (PostgresAttachmentStore options).
   */
  store: z
    .union([
      z.string().min(1),
      z.strictObject({ sqlite: z.string().min(1) }),
      z.strictObject({ postgres: z.record(z.string(), z.unknown()) }),
    ])
    .optional(),
  /** Several replicas: invalidations, a shared content cache and read leases over Redis (RedisSharedTier options). */
  redis: z.record(z.string(), z.unknown()).optional(),
  /** `mcp-context serve`: tenants (service keys by environment variable or digest), body and time limits, the audit file. */
  service: serviceSettingsSchema.optional(),
});
