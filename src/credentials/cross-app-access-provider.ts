import type {
  FetchLike,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';

export interface CrossAppAccessOptions {
  readonly idpTokenUrl: string;
  readonly idpClientId: string;
  readonly idpClientSecret?: string;
  /** The user's ID token from the enterprise identity provider. */
  readonly idToken: string;
  /** This client at the MCP server's authorization server. */
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scope?: string;
  /** The endpoint-policy fetch: the IdP's token endpoint is checked like any other URL. */
  readonly fetch: FetchLike;
  readonly onSecret: (secret: string) => void;
}

const tokenExchange = 'urn:ietf:params:oauth:grant-type:token-exchange';
const jwtBearer = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * Cross-app access (SEP-990) on the SDK's `auth()`: the SDK discovers the MCP server's
 * authorization server and posts the token request with `client_secret_basic`; this provider
 * supplies the grant — an ID-JAG obtained from the identity provider by token exchange
 * (RFC 8693, audience = that authorization server, resource = the MCP server) — as a JWT
 * bearer assertion (RFC 7523).
 */
export class CrossAppAccessProvider implements OAuthClientProvider {
  readonly #options: CrossAppAccessOptions;
  #tokens: OAuthTokens | undefined;
  #discovery: OAuthDiscoveryState | undefined;

  constructor(options: CrossAppAccessOptions) {
    this.#options = options;
  }

  get redirectUrl(): undefined {
    return undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'mcp-resource-context',
      redirect_uris: [],
      grant_types: [jwtBearer],
      token_endpoint_auth_method: 'client_secret_basic',
    };
  }

  clientInformation() {
    return { client_id: this.#options.clientId, client_secret: this.#options.clientSecret };
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#options.onSecret(tokens.access_token);
    this.#tokens = tokens;
  }

  redirectToAuthorization(): void {
    throw new Error('cross-app access never sends the user to authorize');
  }

  saveCodeVerifier(): void {}

  codeVerifier(): string {
    throw new Error('cross-app access uses no code verifier');
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.#discovery;
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams> {
    const discovery = this.#discovery;
    const audience = discovery?.authorizationServerMetadata?.issuer ?? discovery?.authorizationServerUrl;
    const resource = discovery?.resourceMetadata?.resource;
    if (audience === undefined || resource === undefined) {
      throw new Error('cross-app access needs the authorization server and resource from discovery');
    }
    const assertion = await this.#exchangeIdToken(String(audience), String(resource), scope);
    return new URLSearchParams({
      grant_type: jwtBearer,
      assertion,
      ...((scope ?? this.#options.scope) !== undefined && {
        scope: (scope ?? this.#options.scope) as string,
      }),
    });
  }

  // --- Internal helpers ---

  async #exchangeIdToken(audience: string, resource: string, scope: string | undefined): Promise<string> {
    const { idpClientId, idpClientSecret } = this.#options;
    const body = new URLSearchParams({
      grant_type: tokenExchange,
      requested_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
      subject_token: this.#options.idToken,
      subject_token_type: 'urn:ietf:params:oauth:token-type:id_token',
      audience,
      resource,
      client_id: idpClientId,
      ...(idpClientSecret !== undefined && { client_secret: idpClientSecret }),
      ...((scope ?? this.#options.scope) !== undefined && {
        scope: (scope ?? this.#options.scope) as string,
      }),
    });
    const response = await this.#options.fetch(this.#options.idpTokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
    });
    const answer = (await response.json().catch(() => ({}))) as { access_token?: unknown; error?: unknown };
    if (!response.ok || typeof answer.access_token !== 'string') {
      throw new Error(
        `the identity provider refused the token exchange (HTTP ${response.status}, ${String(answer.error ?? 'no error code')})`,
      );
    }
    this.#options.onSecret(answer.access_token);
    return answer.access_token;
  }
}
