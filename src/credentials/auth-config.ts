import { z } from 'zod';
import { secretValueSchema } from './secret-value.js';

/**
 * How a remote server is authenticated. Every value may be inline, `{ secret }` (the encrypted
 * credential file) or `{ env }`. Values are resolved on every connect, so a rotated secret is
 * picked up by the next session.
 */
export const authConfigSchema = z.discriminatedUnion('type', [
  /** `Authorization: Bearer <token>`. */
  z.strictObject({ type: z.literal('bearer'), token: secretValueSchema }),
  /** An API key in a header of the server's choosing, e.g. `X-API-Key`. */
  z.strictObject({
    type: z.literal('apiKey'),
    header: z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'header must be an HTTP header name'),
    value: secretValueSchema,
  }),
  /**
   * OAuth 2.1 client credentials (RFC 6749 §4.4) through the MCP SDK's auth flow. Without
   * `tokenUrl` the authorization server is discovered from the MCP server (RFC 9728).
   */
  z
    .strictObject({
      type: z.literal('oauth-client-credentials'),
      tokenUrl: z.url().optional(),
      /**
       * The authorization server's issuer URL: the client secret is presented to no other. Default:
       * the origin of `tokenUrl`; required without it.
       */
      issuer: z.url().optional(),
      clientId: secretValueSchema,
      clientSecret: secretValueSchema,
      scope: z.string().min(1).optional(),
    })
    .refine((auth) => auth.tokenUrl !== undefined || auth.issuer !== undefined, {
      message:
        'give tokenUrl or issuer: the client secret must not go to whatever server the MCP server names',
      path: ['issuer'],
    }),
  /** A TLS client certificate (PEM); `ca` adds trusted roots for the server's certificate. */
  z.strictObject({
    type: z.literal('mtls'),
    cert: secretValueSchema,
    key: secretValueSchema,
    ca: secretValueSchema.optional(),
  }),
]);

export type AuthConfig = z.output<typeof authConfigSchema>;
export type AuthConfigInput = z.input<typeof authConfigSchema>;
