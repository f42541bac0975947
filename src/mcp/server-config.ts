import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { z } from 'zod';
import { authConfigSchema } from '../credentials/auth-config.js';

/**
 * One entry of an `mcpServers` object, in the format common MCP hosts use
 * (stdio `command/args/env/cwd`; remote `type: "http" | "sse" | "auto"`, `url`, `headers`).
 * `type: "transport"` is programmatic only: a factory for an already-built SDK transport,
 * used for in-process servers.
 */
const stdioServerSchema = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
});

const remoteServerSchema = z.object({
  /**
   * `auto` (the default when only `url` is given) tries Streamable HTTP and falls back to
   * SSE for servers that predate it.
   */
  type: z.enum(['http', 'sse', 'auto']).default('auto'),
  url: z.url(),
  headers: z.record(z.string(), z.string()).optional(),
  /** Credentials: bearer token, API-key header, OAuth client credentials or an mTLS client certificate. */
  auth: authConfigSchema.optional(),
});

const transportServerSchema = z.object({
  type: z.literal('transport'),
  createTransport: z.custom<() => Transport | Promise<Transport>>((value) => typeof value === 'function', {
    message: 'createTransport must be a function returning an MCP transport',
  }),
});

/** Options every server accepts, whatever its transport. */
const commonServerSchema = z.object({
  /** Per-request timeout for this server's MCP requests, in milliseconds. */
  requestTimeoutMs: z.number().int().positive().optional(),
  /**
   * Some servers (GitNexus among them) report failures as a successful read whose single
   * content item is `text/plain` starting with "Error: ". When true (the default) such a
   * body is treated as a failure, never injected as context.
   */
  plainTextErrors: z.boolean().default(true),
});

export const serverConfigSchema = z.union([
  stdioServerSchema.extend(commonServerSchema.shape),
  remoteServerSchema.extend(commonServerSchema.shape),
  transportServerSchema.extend(commonServerSchema.shape),
]);

export const serverNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'server names are 1-64 characters of letters, digits, _ . -');

export const mcpServersSchema = z.record(serverNameSchema, serverConfigSchema);

export type McpServerConfigInput = z.input<typeof serverConfigSchema>;
export type McpServerConfig = z.output<typeof serverConfigSchema>;
