import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import type { OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export interface OAuthClientCredentialsOptions {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope?: string;
  /** The token endpoint; when set, no discovery happens and the secret goes only there. */
  readonly tokenUrl?: string;
  /** The authorization server the credentials belong to (required without `tokenUrl`). */
  readonly issuer: string;
  /** Called with each access token obtained, so it can be kept out of errors and logs. */
  readonly onAccessToken: (token: string) => void;
}

/**
 * The SDK's client-credentials provider (client_secret_basic), bound to one authorization
 * server. With a `tokenUrl` it hands the SDK a discovery state naming that endpoint, so the
 * token request goes straight there instead of wherever the MCP server's metadata points.
 */
export class OAuthClientCredentialsProvider extends ClientCredentialsProvider {
  readonly #discovery: OAuthDiscoveryState | undefined;
  readonly #onAccessToken: (token: string) => void;

  constructor(options: OAuthClientCredentialsOptions) {
    super({
      clientId: options.clientId,
      clientSecret: options.clientSecret,
      clientName: 'mcp-resource-context',
      expectedIssuer: options.issuer,
      ...(options.scope !== undefined && { scope: options.scope }),
    });
    this.#onAccessToken = options.onAccessToken;
    this.#discovery =
      options.tokenUrl === undefined
        ? undefined
        : {
            authorizationServerUrl: options.issuer,
            authorizationServerMetadata: {
              issuer: options.issuer,
              authorization_endpoint: options.tokenUrl,
              token_endpoint: options.tokenUrl,
              response_types_supported: ['token'],
              grant_types_supported: ['client_credentials'],
              token_endpoint_auth_methods_supported: ['client_secret_basic'],
            },
          };
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  saveDiscoveryState(): void {
    // A configured token endpoint is never replaced by what a server advertises.
  }

  override saveTokens(tokens: OAuthTokens): void {
    this.#onAccessToken(tokens.access_token);
    if (tokens.refresh_token) this.#onAccessToken(tokens.refresh_token);
    super.saveTokens(tokens);
  }
}
