import type { OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/client';

export interface OAuthClientCredentialsOptions {
  readonly clientId: string;
  /** `client_secret_basic`; or give `privateKey` for `private_key_jwt`. */
  readonly clientSecret?: string;
  readonly privateKey?: string;
  /** JWS algorithm of `privateKey` (default ES256). */
  readonly algorithm?: string;
  readonly scope?: string;
  /** The token endpoint; when set, no discovery happens and the credentials go only there. */
  readonly tokenUrl?: string;
  /** The authorization server the credentials belong to; without it, the one the server names. */
  readonly issuer?: string;
  /** Called with each access token obtained, so it can be kept out of errors and logs. */
  readonly onAccessToken: (token: string) => void;
}

/**
 * The SDK's client-credentials provider (`client_secret_basic`, or `private_key_jwt` given a
 * private key), optionally bound to one authorization server. With a `tokenUrl` it hands the
 * SDK a discovery state naming that endpoint, so the token request goes straight there instead
 * of wherever the MCP server's metadata points. Without an issuer the SDK discovers it from
 * the MCP server; the registry's endpoint policy applies to every URL that leads to.
 */
export function createClientCredentialsProvider(options: OAuthClientCredentialsOptions): OAuthClientProvider {
  const common = {
    clientId: options.clientId,
    clientName: 'mcp-resource-context',
    ...(options.issuer !== undefined && { expectedIssuer: options.issuer }),
    ...(options.scope !== undefined && { scope: options.scope }),
  };
  const provider: OAuthClientProvider =
    options.privateKey !== undefined
      ? new PrivateKeyJwtProvider({
          ...common,
          privateKey: options.privateKey,
          algorithm: options.algorithm ?? 'ES256',
        })
      : new ClientCredentialsProvider({ ...common, clientSecret: options.clientSecret ?? '' });
  const saveTokens = provider.saveTokens.bind(provider);
  provider.saveTokens = (tokens: OAuthTokens) => {
    options.onAccessToken(tokens.access_token);
    if (tokens.refresh_token) options.onAccessToken(tokens.refresh_token);
    return saveTokens(tokens);
  };
  const discovery = configuredDiscovery(options);
  if (discovery !== undefined) {
    provider.discoveryState = () => discovery;
    // A configured token endpoint is never replaced by what a server advertises.
    provider.saveDiscoveryState = () => undefined;
  }
  return provider;
}

// --- Internal helpers ---

function configuredDiscovery(options: OAuthClientCredentialsOptions): OAuthDiscoveryState | undefined {
  if (options.tokenUrl === undefined) return undefined;
  const issuer = options.issuer ?? new URL(options.tokenUrl).origin;
  return {
    authorizationServerUrl: issuer,
    authorizationServerMetadata: {
      issuer,
      authorization_endpoint: options.tokenUrl,
      token_endpoint: options.tokenUrl,
      response_types_supported: ['token'],
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: [
        options.privateKey === undefined ? 'client_secret_basic' : 'private_key_jwt',
      ],
    },
  };
}
