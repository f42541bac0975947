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
  // Other keys hosts keep in this format (disabled, autoApprove, …) are ignored; credentials
  // are not: a stdio server gets them through its env, and silently dropping them would hide that.
  auth: z
    .never({ error: 'auth applies to remote servers; pass a stdio server its credentials in env' })
    .optional(),
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

const stdioEntrySchema = stdioServerSchema.extend(commonServerSchema.shape);
const remoteEntrySchema = remoteServerSchema.extend(commonServerSchema.shape);
const transportEntrySchema = transportServerSchema.extend(commonServerSchema.shape);
const unionSchema = z.union([stdioEntrySchema, remoteEntrySchema, transportEntrySchema]);

/**
 * One server entry. The transport is told by the keys, as hosts do (`command` → stdio,
 * `createTransport` → in-process, else remote), so an error names the field of that kind of
 * entry instead of "invalid input" for a union of three.
 */
export const serverConfigSchema = z.unknown().transform((value, context): z.output<typeof unionSchema> => {
  const entry = typeof value === 'object' && value !== null ? value : {};
  const schema =
    'command' in entry
      ? stdioEntrySchema
      : 'createTransport' in entry
        ? transportEntrySchema
        : remoteEntrySchema;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) context.addIssue({ ...issue, code: 'custom', path: issue.path });
  return z.NEVER;
});

export const serverNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, 'server names are 1-64 characters of letters, digits, _ . -');

export const mcpServersSchema = z.record(serverNameSchema, serverConfigSchema);

export type McpServerConfigInput = z.input<typeof unionSchema>;
export type McpServerConfig = z.output<typeof unionSchema>;
