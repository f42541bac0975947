import { z } from 'zod';

/** An environment variable's name, as POSIX shells accept them. */
const environmentName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name');

/**
 * One tenant of `mcp-context serve`: a service key and what it may use. The key itself never
 * sits in the file: `keyEnv` names the environment variable holding it, or `keySha256` is its
 * SHA-256 (hex) for operators who keep only a digest. Keys are never taken from argv.
 */
const serviceTenantSchema = z
  .strictObject({
    /** Names the tenant in audit records and metrics; never a secret. */
    id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'expected 1–64 letters, digits, ".", "_" or "-"'),
    keyEnv: environmentName.optional(),
    keySha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'expected 64 lowercase hex digits (sha256 of the key)')
      .optional(),
    /** Pipeline ids this key may use; `["*"]`: every bound pipeline. */
    pipelines: z.array(z.string().min(1)).min(1),
    /** Agent ids this key may name; `["*"]`: every bound agent. Default: none. */
    agents: z.array(z.string().min(1)).default([]),
  })
  .refine((tenant) => (tenant.keyEnv === undefined) !== (tenant.keySha256 === undefined), {
    message: 'give exactly one of keyEnv or keySha256',
    path: ['keyEnv'],
  });

/**
 * The `service` section of `mcp-context.json`: what `mcp-context serve` needs beyond the
 * library's own settings. Every limit bounds what one client can hold of the process.
 */
export const serviceSettingsSchema = z.strictObject({
  /** Service keys and the pipelines and agents each may use. None: tokenless, on loopback only. */
  tenants: z.array(serviceTenantSchema).default([]),
  /** Largest request body accepted, in bytes, counted while it streams in (413 beyond it). */
  maxBodyBytes: z
    .number()
    .int()
    .positive()
    .max(64 * 1024 * 1024)
    .default(1024 * 1024),
  /** Time for a client to send its request headers (Node's headersTimeout). */
  headersTimeoutMs: z.number().int().positive().default(10_000),
  /** Time for a client to send its whole body once the headers are in (a slow body is cut: 408). */
  bodyTimeoutMs: z.number().int().positive().default(10_000),
  /** Time a handler may take before the request is answered 504 (turns have their own deadline). */
  requestTimeoutMs: z.number().int().positive().default(60_000),
  /** Idle keep-alive connections are closed after this long. */
  keepAliveTimeoutMs: z.number().int().positive().default(5_000),
  /** On SIGTERM, in-flight requests get this long to finish before sessions are closed anyway. */
  drainTimeoutMs: z.number().int().positive().default(30_000),
  /** Live trace streams open at once (GET /v1/traces); more are refused 503. */
  maxTraceStreams: z.number().int().positive().max(10_000).default(64),
  /** Every audit record (MCP operations and refused requests) appended here as JSON lines; default: refusals and failures on stderr. */
  auditFile: z.string().min(1).optional(),
});

export type ServiceSettings = z.output<typeof serviceSettingsSchema>;
export type ServiceTenantSettings = ServiceSettings['tenants'][number];

/** The `service` section of a config that has none: every default above. */
export const defaultServiceSettings: ServiceSettings = Object.freeze(serviceSettingsSchema.parse({}));
