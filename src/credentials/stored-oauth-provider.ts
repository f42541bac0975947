import { randomBytes } from 'node:crypto';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  OAuthTokens,
} from '@modelcontextprotocol/client';
import { checkMetadataIssuer } from './check-metadata-issuer.js';
import type { OAuthAuthorizer, OAuthSubject } from './oauth-authorizer.js';

export interface StoredOAuthProviderOptions {
  readonly subject: OAuthSubject;
  readonly authorizer: OAuthAuthorizer;
  readonly clientName: string;
  readonly clientId?: string;
  readonly clientSecret?: string;
  readonly clientMetadataUrl?: string;
  readonly scope?: string;
  /** Learns every token obtained, so that it can be kept out of errors and logs. */
  readonly onSecret: (secret: string) => void;
}

/**
 * The SDK's `OAuthClientProvider` for one (server, principal), its records in the host's
 * `OAuthStore`. The SDK's `auth()` drives it; this class only keeps and hands back what the
 * SDK gives it, and remembers the authorization URL it was sent to.
 */
export class StoredOAuthProvider implements OAuthClientProvider {
  readonly #options: StoredOAuthProviderOptions;
  #authorizationUrl: URL | undefined;
  #state: string | undefined;
  /** Set during a scope step-up: a refresh would only bring back the scope that fell short. */
  #withholdRefreshToken = false;
  /** The authorization server discovery named before `rediscover` forgot it. */
  #previousAuthorizationServer: string | undefined;

  constructor(options: StoredOAuthProviderOptions) {
    this.#options = options;
  }

  get redirectUrl(): string {
    return this.#options.authorizer.redirectUrl;
  }

  get clientMetadataUrl(): string | undefined {
    return this.#options.clientMetadataUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    // `application_type` is OpenID Connect's, which the SDK's type leaves out (it sends it as given).
    const metadata: OAuthClientMetadata & { readonly application_type: 'native' | 'web' } = {
      client_name: this.#options.clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: this.#options.clientSecret === undefined ? 'none' : 'client_secret_basic',
      // MCP 2026-07-28 (SEP-837): dynamic registration names the kind of client, by its redirect.
      application_type: applicationTypeOf(this.redirectUrl),
      ...(this.#options.scope !== undefined && { scope: this.#options.scope }),
    };
    return metadata;
  }

  state(): string {
    this.#state = randomBytes(16).toString('base64url');
    return this.#state;
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const stored = (await this.#get('client')) as OAuthClientInformationMixed | undefined;
    const { clientId, clientSecret } = this.#options;
    if (clientId === undefined) return stored;
    // A pre-registered client: the stored copy only adds the SDK's binding to its issuer.
    if (stored?.client_id === clientId) return stored;
    return { client_id: clientId, ...(clientSecret !== undefined && { client_secret: clientSecret }) };
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    if (information.client_secret !== undefined) this.#options.onSecret(information.client_secret);
    await this.#set('client', information);
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const tokens = (await this.#get('tokens')) as OAuthTokens | undefined;
    if (tokens === undefined) return undefined;
    this.#options.onSecret(tokens.access_token);
    if (tokens.refresh_token !== undefined) this.#options.onSecret(tokens.refresh_token);
    if (!this.#withholdRefreshToken) return tokens;
    const { refresh_token: _withheld, ...accessOnly } = tokens;
    return accessOnly;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#options.onSecret(tokens.access_token);
    if (tokens.refresh_token !== undefined) this.#options.onSecret(tokens.refresh_token);
    // A token response without a refresh token keeps the one we had (RFC 6749 §6).
    const previous = (await this.#get('tokens')) as OAuthTokens | undefined;
    const refresh = tokens.refresh_token ?? previous?.refresh_token;
    await this.#set('tokens', { ...tokens, ...(refresh !== undefined && { refresh_token: refresh }) });
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.#authorizationUrl = authorizationUrl;
  }

  /** The URL the last authorization needs the user at (and forgets it). */
  takeAuthorizationUrl(): URL | undefined {
    const url = this.#authorizationUrl;
    this.#authorizationUrl = undefined;
    return url;
  }

  async saveCodeVerifier(codeVerifier: string): Promise<void> {
    await this.#set('verifier', { codeVerifier, ...(this.#state !== undefined && { state: this.#state }) });
  }

  async codeVerifier(): Promise<string> {
    const record = (await this.#get('verifier')) as { codeVerifier?: string } | undefined;
    if (record?.codeVerifier === undefined) throw new Error('no authorization is in progress');
    return record.codeVerifier;
  }

  /** The `state` sent with the authorization in progress, if any. */
  async expectedState(): Promise<string | undefined> {
    return ((await this.#get('verifier')) as { state?: string } | undefined)?.state;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const kinds = scope === 'all' ? undefined : [scope];
    await this.#options.authorizer.store.delete(this.#options.subject, kinds);
  }

  /**
   * Kept only when its metadata names the issuer it was fetched for (the SDK does not check).
   * When it names another authorization server than before, the tokens go: they were issued by
   * the old one and are never sent to the new one (a refresh token among them). The client's
   * registration the SDK itself discards, bound as it is to the server it registered with.
   */
  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    checkMetadataIssuer(state, this.#options.subject.server);
    const before = this.#previousAuthorizationServer ?? (await this.discoveryState())?.authorizationServerUrl;
    this.#previousAuthorizationServer = undefined;
    if (before !== undefined && before !== state.authorizationServerUrl)
      await this.invalidateCredentials('tokens');
    await this.#set('discovery', state);
  }

  /**
   * Forgets discovery, so that the next authorization reads the resource's metadata again
   * (SEP-2352: its `authorization_servers` may have changed), remembering which authorization
   * server it named for saveDiscoveryState to compare.
   */
  async rediscover(): Promise<void> {
    this.#previousAuthorizationServer = (await this.discoveryState())?.authorizationServerUrl;
    await this.invalidateCredentials('discovery');
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.#get('discovery')) as OAuthDiscoveryState | undefined;
  }

  /** Runs `work` with the refresh token hidden from the SDK (scope step-up needs the user). */
  async withoutRefresh<T>(work: () => Promise<T>): Promise<T> {
    this.#withholdRefreshToken = true;
    try {
      return await work();
    } finally {
      this.#withholdRefreshToken = false;
    }
  }

  // --- Internal helpers ---

  #get(kind: 'tokens' | 'client' | 'verifier' | 'discovery'): Promise<unknown> {
    return Promise.resolve(this.#options.authorizer.store.get(this.#options.subject, kind));
  }

  async #set(kind: 'tokens' | 'client' | 'verifier' | 'discovery', value: unknown): Promise<void> {
    await this.#options.authorizer.store.set(this.#options.subject, kind, value);
  }
}

/**
 * The OpenID Connect registration's `application_type` for a redirect URL: `native` for a
 * loopback host or a scheme of its own (an app on the user's machine), else `web`.
 */
function applicationTypeOf(redirectUrl: string): 'native' | 'web' {
  const url = new URL(redirectUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'native';
  return ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) ? 'native' : 'web';
}
