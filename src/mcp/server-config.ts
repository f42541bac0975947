import type { Transport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { authConfigSchema } from '../credentials/auth-config.js';
import { describeUnknownKey } from '../options/nearest-key.js';

/**
 * One entry of an `mcpServers` object, in the format common MCP hosts use
 * (stdio `command/args/env/cwd`; remote `type: "http" | "sse" | "auto"`, `url`, `headers`).
 * `type: "transport"` is programmatic only: a factory for an already-built SDK transport,
 * used for in-process servers.
 */
const stdioServerSchema = z.strictObject({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  // Credentials: a stdio server gets them through its env; say so rather than "unknown key".
  auth: z
    .never({ error: 'auth applies to remote servers; pass a stdio server its credentials in env' })
    .optional(),
});

const remoteServerSchema = z.strictObject({
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

const transportServerSchema = z.strictObject({
  type: z.literal('transport'),
  createTransport: z.custom<() => Transport | Promise<Transport>>((value) => typeof value === 'function', {
    message: 'createTransport must be a function returning an MCP transport',
  }),
});

/** Options every server accepts, whatever its transport. */
const commonServerSchema = z.strictObject({
  /** Per-request timeout for this server's MCP requests, in milliseconds. */
  requestTimeoutMs: z.number().int().positive().optional(),
  /**
   * Some servers (GitNexus among them) report failures as a successful read whose single
   * content item is `text/plain` starting with "Error: ". When true (the default) such a
   * body is treated as a failure, never injected as context.
   */
  plainTextErrors: z.boolean().default(true),
  /**
   * Every `env` value and header value is treated as a secret and redacted from errors, status,
   * traces and content the server sends back. Names listed here (`NODE_ENV`, `X-Team`) hold
   * values that are not secrets: they are left alone.
   */
  notSecret: z.array(z.string().min(1)).default([]),
});

// Strict, every one: a misspelt key (`"arg"`, `"comand"`) is an error naming it, never a
// silently different server. Keys other hosts keep in this format (disabled, autoApprove, …)
// are refused too: this library would not honour them.
const stdioEntrySchema = z.strictObject({ ...stdioServerSchema.shape, ...commonServerSchema.shape });
const remoteEntrySchema = z.strictObject({ ...remoteServerSchema.shape, ...commonServerSchema.shape });
const transportEntrySchema = z.strictObject({ ...transportServerSchema.shape, ...commonServerSchema.shape });
const unionSchema = z.union([stdioEntrySchema, remoteEntrySchema, transportEntrySchema]);

const entryKinds = [
  { kind: 'stdio', key: 'command', schema: stdioEntrySchema },
  { kind: 'remote', key: 'url', schema: remoteEntrySchema },
  { kind: 'transport', key: 'createTransport', schema: transportEntrySchema },
] as const;
const typesOfKind = { stdio: ['stdio'], remote: ['http', 'sse', 'auto'], transport: ['transport'] } as const;
const allKeys = [...new Set(entryKinds.flatMap(({ schema }) => Object.keys(schema.shape)))];

/**
 * One server entry. The transport is told by the keys, as hosts do (`command` → stdio,
 * `url` → remote, `createTransport` → in-process; else `type`), so an error names the field of
 * that kind of entry instead of "invalid input" for a union of three. Unknown keys are named
 * with the known key they most likely meant; an entry with the keys of two kinds is refused.
 */
export const serverConfigSchema = z.unknown().transform((value, context): z.output<typeof unionSchema> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    context.addIssue({ code: 'custom', message: 'expected an object', path: [] });
    return z.NEVER;
  }
  const keys = Object.keys(value);
  const unknown = keys.find((key) => !allKeys.includes(key));
  if (unknown !== undefined) {
    context.addIssue({
      code: 'custom',
      message: describeUnknownKey(unknown, allKeys),
      path: [unknown],
      params: { unknownKey: true },
    });
    return z.NEVER;
  }
  const present = entryKinds.filter(({ key }) => key in value);
  if (present.length > 1) {
    const [first, second] = present as unknown as [(typeof entryKinds)[number], (typeof entryKinds)[number]];
    context.addIssue({
      code: 'custom',
      message: `an entry is one kind of server: "${first.key}" (${first.kind}) or "${second.key}" (${second.kind}), not both`,
      path: [second.key],
    });
    return z.NEVER;
  }
  const type = (value as { type?: unknown }).type;
  const kind =
    present[0] ??
    entryKinds.find(({ kind }) => (typesOfKind[kind] as readonly unknown[]).includes(type)) ??
    undefined;
  if (!kind) {
    context.addIssue({
      code: 'custom',
      message: 'needs "command" (a stdio server) or "url" (a remote server)',
      path: [],
    });
    return z.NEVER;
  }
  // A key of another kind of server (`headers` on a stdio entry) says which kind it belongs to.
  const foreign = keys.find((key) => !(key in kind.schema.shape));
  if (foreign !== undefined) {
    const owner = entryKinds.find(({ schema }) => foreign in schema.shape);
    context.addIssue({
      code: 'custom',
      message: `applies to ${owner?.kind ?? 'other'} servers, not to a ${kind.kind} server ("${kind.key}")`,
      path: [foreign],
    });
    return z.NEVER;
  }
  const result = kind.schema.safeParse(value);
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
