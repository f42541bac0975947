import { z } from 'zod';
import type { AuditSink } from '../audit/audit-record.js';
import type { CredentialSource } from '../credentials/credential-source.js';
import type { OAuthAuthorizer } from '../credentials/oauth-authorizer.js';
import type { Telemetry } from '../trace/telemetry.js';
import { endpointPolicySchema } from './endpoint-policy.js';
import { reconnectSchema } from './reconnect-schedule.js';
import { mcpServersSchema } from './server-config.js';
import type { ElicitationHandler } from './server-connection.js';

/**
 * The registry's settings that are plain data: the one definition of them. The registry's
 * options and the config file (`mcp-context.json`, top level beside `mcpServers`) are built from it.
 */
export const registrySettingsShape = {
  /** Default per-request timeout, in milliseconds. */
  requestTimeoutMs: z.number().int().positive().default(30_000),
  /** Caps for `{ all: true }` listings. */
  maxPages: z.number().int().positive().default(100),
  maxItems: z.number().int().positive().default(10_000),
  /** Most content bytes a read keeps (8 MiB); cut content is reported in `truncation`. */
  maxReadBytes: z
    .number()
    .int()
    .positive()
    .default(8 * 1024 * 1024),
  /**
   * Most bytes of one HTTP response body (of one event, on an event stream) a remote server's
   * session reads; past it reading stops (LIMIT_EXCEEDED). For a stdio server, most bytes of one
   * message (the SDK's stdio transport then closes the session; its own default, 10 MiB, would
   * refuse a blob of `maxReadBytes` in base64). Default: twice `maxReadBytes` plus 1 MiB —
   * base64 and JSON escaping, and the JSON-RPC envelope. At least `maxReadBytes`.
   */
  maxResponseBytes: z.number().int().positive().optional(),
  /**
   * Reopening closed sessions: 1 s, 2 s, 4 s … capped at 30 s, with jitter; after 8 consecutive
   * failures the server is `failed` and tried every 5 min (or on `reconnect(name)`).
   */
  reconnect: reconnectSchema.prefault({}),
  /**
   * Per-user servers (`auth: { type: "oauth", perUser: true }`): at most `max` principals have a
   * session open per server. Only a session with no request in flight is closed: after `idleMs`
   * unused, or (the least recently used idle one) to make room for another principal. A request
   * that needs a new session while all `max` are busy waits for one, first come first served,
   * at most `waitMs` and never past its own timeout; then it fails SESSIONS_EXHAUSTED.
   */
  principalSessions: z
    .strictObject({
      idleMs: z.number().int().positive().default(300_000),
      max: z.number().int().positive().default(100),
      waitMs: z.number().int().nonnegative().default(10_000),
    })
    .prefault({}),
  /** Where remote servers may live; no restriction by default. */
  endpointPolicy: endpointPolicySchema.default({ preset: 'open', denyHosts: [] }),
};

export const registryOptionsSchema = z.strictObject({
  mcpServers: mcpServersSchema,
  ...registrySettingsShape,
  /** Looks up `{ secret: "name" }` credential references (e.g. `openCredentialFile(path)`). */
  credentials: z
    .custom<CredentialSource>(hasMethod('get'), { message: 'credentials must have a get(name) method' })
    .optional(),
  /**
   * The host's part of OAuth authorization-code flows (`auth: { type: "oauth" }`): the redirect
   * URL, where tokens are kept per (server, principal), and how the user's code comes back.
   */
  authorizer: z
    .custom<OAuthAuthorizer>(
      (value) =>
        typeof value === 'object' &&
        value !== null &&
        typeof (value as { redirectUrl?: unknown }).redirectUrl === 'string' &&
        hasMethod('get')((value as { store?: unknown }).store) &&
        isTenant((value as { tenant?: unknown }).tenant),
      {
        message:
          'an authorizer needs a redirectUrl string and a store with get/set/delete (and a tenant, if any, is a non-empty string)',
      },
    )
    .optional(),
  /**
   * Answers servers' elicitation requests (form defaults applied, SEP-1034). Without it the
   * client does not declare the elicitation capability.
   */
  elicitation: z.custom<ElicitationHandler>((value) => typeof value === 'function').optional(),
  /** One record per operation goes to each sink (no content, argument values or credentials). */
  audit: z
    .union([
      z.custom<AuditSink>(hasMethod('write'), { message: 'an audit sink must have a write(record) method' }),
      z.array(
        z.custom<AuditSink>(hasMethod('write'), {
          message: 'an audit sink must have a write(record) method',
        }),
      ),
    ])
    .optional(),
  /** Called when an audit sink fails; default: a process warning. The operation is unaffected. */
  onAuditError: z.custom<(error: unknown) => void>((value) => typeof value === 'function').optional(),
  /**
   * Spans per MCP request and reconnect, trace context in `params._meta`, request metrics:
   * `openTelemetry()` from `mcp-resource-context/opentelemetry`. None by default.
   */
  telemetry: z
    .custom<Telemetry>(hasMethod('startSpan'), { message: 'telemetry must come from openTelemetry()' })
    .optional(),
});

function isTenant(tenant: unknown): boolean {
  return tenant === undefined || (typeof tenant === 'string' && tenant.length > 0);
}

function hasMethod(name: string) {
  return (value: unknown) =>
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Record<string, unknown>)[name] === 'function';
}

export type McpServerRegistryOptions = z.input<typeof registryOptionsSchema>;
export type ResolvedRegistryOptions = z.output<typeof registryOptionsSchema>;
