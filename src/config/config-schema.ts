import { z } from 'zod';

const budgetSchema = z.strictObject({
  /** Tokens the whole rendered context of a turn may take. */
  maxTokens: z.number().int().positive(),
  /** Below this many content tokens an attachment is omitted rather than injected as a stub. */
  minTokens: z.number().int().nonnegative().optional(),
  strategy: z.enum(['fair', 'priority']).optional(),
});

const cacheSchema = z.strictObject({
  /** Bytes of resource content the content cache may hold. */
  maxBytes: z.number().int().positive().optional(),
  /** How long a cached read stays fresh, in milliseconds; 0 caches nothing. */
  ttlMs: z.number().int().nonnegative().optional(),
});

/**
 * The shape of `mcp-context.json`. Server entries and bindings are only checked for shape
 * here: the McpServerRegistry and the AccessPolicy validate them (see parse-context-config.ts),
 * so the file accepts exactly what the library accepts.
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
  budget: budgetSchema.optional(),
  cache: cacheSchema.optional(),
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
