import { z } from 'zod';

// Apart from the store so that the config file's validation does not load `pg`.
export const postgresStoreOptionsSchema = z.strictObject({
  /** `postgres://user@host:port/database`; without it, pg reads the PG* environment variables. */
  connectionString: z.string().min(1).optional(),
  /** The PostgreSQL schema (namespace) the tables live in; created when missing. */
  schema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL identifier ([a-z_][a-z0-9_]*, at most 63)')
    .default('mcp_context'),
  /** How long getting a connection may take before STORE_UNAVAILABLE. */
  connectTimeoutMs: z.number().int().positive().default(5_000),
  /** How long one query may take before STORE_UNAVAILABLE (client side, so a dead server cannot hang it). */
  queryTimeoutMs: z.number().int().positive().default(10_000),
  /** Connections held at most. */
  maxConnections: z.number().int().positive().default(10),
});

export type PostgresAttachmentStoreOptions = z.input<typeof postgresStoreOptionsSchema>;
