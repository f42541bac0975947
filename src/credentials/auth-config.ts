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
   * OAuth 2.1 client credentials (RFC 6749 §4.4) through the MCP SDK's auth flow, with
   * `client_secret_basic` or, given `privateKey`, `private_key_jwt` (RFC 7523). Without
   * `tokenUrl` the authorization server is discovered from the MCP server (RFC 9728); every
   * URL discovery leads to passes the registry's endpoint policy before anything is sent.
   */
  z
    .strictObject({
      type: z.literal('oauth-client-credentials'),
      tokenUrl: z.url().optional(),
      /**
       * The authorization server's issuer URL: when set, the credentials are presented to no
       * other. Default: the origin of `tokenUrl`; without either, the one the server names.
       */
      issuer: z.url().optional(),
      clientId: secretValueSchema,
      clientSecret: secretValueSchema.optional(),
      /** PEM private key for `private_key_jwt` client authentication (instead of `clientSecret`). */
      privateKey: secretValueSchema.optional(),
      /** JWS algorithm of `privateKey` (default ES256). */
      algorithm: z.string().min(1).optional(),
      scope: z.string().min(1).optional(),
    })
    .refine((auth) => (auth.clientSecret === undefined) !== (auth.privateKey === undefined), {
      message: 'give exactly one of clientSecret and privateKey',
      path: ['clientSecret'],
    }),
  /**
   * OAuth 2.1 authorization code with PKCE, as the MCP authorization spec describes it: the
   * user authorizes in a browser; the host's `OAuthAuthorizer` says where to send them and
   * keeps tokens per (server, principal). The client is identified by `clientId` (registered
   * in advance), by `clientMetadataUrl` (a client ID metadata document) where the
   * authorization server supports it, or else by dynamic registration (RFC 7591).
   */
  z.strictObject({
    type: z.literal('oauth'),
    /** Each principal (the host's user) has its own tokens and session at this server. */
    perUser: z.boolean().default(false),
    clientId: secretValueSchema.optional(),
    clientSecret: secretValueSchema.optional(),
    clientMetadataUrl: z.url().optional(),
    /** Fallback scope when neither the server's challenge nor its metadata name one. */
    scope: z.string().min(1).optional(),
    clientName: z.string().min(1).default('mcp-resource-context'),
  }),
  /**
   * Cross-app access (SEP-990, enterprise-managed authorization): the user's ID token from the
   * enterprise identity provider is exchanged there (RFC 8693) for an ID-JAG, which the MCP
   * server's authorization server accepts as a JWT bearer grant (RFC 7523).
   */
  z.strictObject({
    type: z.literal('oauth-cross-app-access'),
    idpTokenUrl: z.url(),
    idpClientId: secretValueSchema,
    idpClientSecret: secretValueSchema.optional(),
    idToken: secretValueSchema,
    clientId: secretValueSchema,
    clientSecret: secretValueSchema,
    scope: z.string().min(1).optional(),
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
