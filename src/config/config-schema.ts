import { z } from 'zod';
import { cacheOptionsSchema } from '../cache/content-cache.js';
import { providerSettingsShape } from '../provider/provider-options.js';

/**
 * The shape of `mcp-context.json`. Every section is the library's own schema (nothing here
 * restates a rule): `budget`, `serverInstructions`, `readTimeoutMs`, `turnDeadlineMs` are the
 * ResourceContextProvider's, `cache` is the ContentCache's. Server entries and bindings are
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
});
