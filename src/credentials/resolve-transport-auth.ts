import type { FetchLike, OAuthClientProvider } from '@modelcontextprotocol/client';
import { ContextError } from '../errors.js';
import type { AuthConfig } from './auth-config.js';
import type { MtlsOptions } from './create-mtls-fetch.js';
import type { AuthorizationAnswer, OAuthAuthorizer } from './oauth-authorizer.js';
import type { SecretRedactor } from './secret-redactor.js';
import { resolveSecretValue, type SecretContext } from './secret-value.js';

/** What a remote transport needs to authenticate: extra headers, an OAuth provider, and its fetch. */
export interface TransportAuth {
  readonly headers: Record<string, string>;
  readonly authProvider?: OAuthClientProvider;
  /** Every request of the session goes through this (endpoint policy, mTLS, OAuth). */
  readonly fetch: FetchLike;
  /** For the authorization-code flow: hands a code the host received to the SDK. */
  readonly completeAuthorization?: (answer: AuthorizationAnswer) => Promise<void>;
}

export interface TransportAuthContext extends SecretContext {
  /** Learns every secret resolved here (and every OAuth token obtained later). */
  readonly redactor: SecretRedactor;
  /** The MCP server's URL (the OAuth protected resource). */
  readonly serverUrl: string;
  /** The host's user the session is for; only per-user servers have one. */
  readonly principal?: string;
  /** The host's part of the authorization-code flow, if it has one. */
  readonly authorizer?: OAuthAuthorizer;
  /** The endpoint-policy fetch, optionally presenting a client certificate. */
  readonly fetchFor: (tls?: MtlsOptions) => FetchLike;
}

/**
 * Resolves a remote server's `auth` into transport options. Runs on every connect, so a rotated
 * secret reaches the next session. Every value resolved is handed to the redactor before anything
 * is sent (inline values and plain `headers`, whatever their names, it knows from the config).
 */
export async function resolveTransportAuth(
  auth: AuthConfig | undefined,
  headers: Readonly<Record<string, string>> | undefined,
  context: TransportAuthContext,
): Promise<TransportAuth> {
  const { redactor } = context;
  const resolve = async (value: Parameters<typeof resolveSecretValue>[0], field: string) => {
    const resolved = await resolveSecretValue(value, `auth.${field}`, context);
    redactor.add(resolved);
    return resolved;
  };
  const resolveOptional = async (
    value: Parameters<typeof resolveSecretValue>[0] | undefined,
    field: string,
  ) => (value === undefined ? undefined : resolve(value, field));
  const base = { ...headers };
  const onSecret = (secret: string) => redactor.add(secret);
  if (auth === undefined) return { headers: base, fetch: context.fetchFor() };
  switch (auth.type) {
    case 'bearer':
      return {
        headers: { ...base, Authorization: `Bearer ${await resolve(auth.token, 'token')}` },
        fetch: context.fetchFor(),
      };
    case 'apiKey':
      return {
        headers: { ...base, [auth.header]: await resolve(auth.value, 'value') },
        fetch: context.fetchFor(),
      };
    case 'oauth-client-credentials': {
      const clientId = await resolve(auth.clientId, 'clientId');
      const clientSecret = await resolveOptional(auth.clientSecret, 'clientSecret');
      const privateKey = await resolveOptional(auth.privateKey, 'privateKey');
      if (clientSecret !== undefined) redactor.addBasicPair(clientId, clientSecret);
      const { createClientCredentialsProvider } = await import('./oauth-client-credentials.js');
      const issuer = auth.issuer ?? (auth.tokenUrl === undefined ? undefined : new URL(auth.tokenUrl).origin);
      return {
        headers: base,
        fetch: context.fetchFor(),
        authProvider: createClientCredentialsProvider({
          clientId,
          ...(clientSecret !== undefined && { clientSecret }),
          ...(privateKey !== undefined && { privateKey }),
          ...(auth.algorithm !== undefined && { algorithm: auth.algorithm }),
          ...(issuer !== undefined && { issuer }),
          ...(auth.tokenUrl !== undefined && { tokenUrl: auth.tokenUrl }),
          ...(auth.scope !== undefined && { scope: auth.scope }),
          onAccessToken: onSecret,
        }),
      };
    }
    case 'oauth-cross-app-access': {
      const { CrossAppAccessProvider } = await import('./cross-app-access-provider.js');
      const clientId = await resolve(auth.clientId, 'clientId');
      const clientSecret = await resolve(auth.clientSecret, 'clientSecret');
      redactor.addBasicPair(clientId, clientSecret);
      const idpClientSecret = await resolveOptional(auth.idpClientSecret, 'idpClientSecret');
      const fetch = context.fetchFor();
      return {
        headers: base,
        fetch,
        authProvider: new CrossAppAccessProvider({
          idpTokenUrl: auth.idpTokenUrl,
          idpClientId: await resolve(auth.idpClientId, 'idpClientId'),
          ...(idpClientSecret !== undefined && { idpClientSecret }),
          idToken: await resolve(auth.idToken, 'idToken'),
          clientId,
          clientSecret,
          ...(auth.scope !== undefined && { scope: auth.scope }),
          fetch,
          onSecret,
        }),
      };
    }
    case 'oauth': {
      const authorizer = context.authorizer;
      if (authorizer === undefined) {
        throw new ContextError(
          'INVALID_OPTION',
          `server "${context.server}" uses OAuth authorization: the registry needs an \`authorizer\` (redirect URL, token store)`,
          { server: context.server, field: 'authorizer' },
        );
      }
      const [{ StoredOAuthProvider }, { createOAuthFetch }] = await Promise.all([
        import('./stored-oauth-provider.js'),
        import('./create-oauth-fetch.js'),
      ]);
      const clientId = await resolveOptional(auth.clientId, 'clientId');
      const clientSecret = await resolveOptional(auth.clientSecret, 'clientSecret');
      if (clientId !== undefined && clientSecret !== undefined) redactor.addBasicPair(clientId, clientSecret);
      const subject = {
        server: context.server,
        ...(context.principal !== undefined && { principal: context.principal }),
      };
      const provider = new StoredOAuthProvider({
        subject,
        authorizer,
        clientName: auth.clientName,
        ...(clientId !== undefined && { clientId }),
        ...(clientSecret !== undefined && { clientSecret }),
        ...(auth.clientMetadataUrl !== undefined && { clientMetadataUrl: auth.clientMetadataUrl }),
        ...(auth.scope !== undefined && { scope: auth.scope }),
        onSecret,
      });
      const fetch = createOAuthFetch({
        subject,
        serverUrl: context.serverUrl,
        provider,
        authorizer,
        fetch: context.fetchFor(),
      });
      return { headers: base, fetch, completeAuthorization: fetch.complete };
    }
    case 'mtls': {
      const cert = await resolveSecretValue(auth.cert, 'auth.cert', context);
      const key = await resolve(auth.key, 'key');
      const ca = auth.ca === undefined ? undefined : await resolveSecretValue(auth.ca, 'auth.ca', context);
      return { headers: base, fetch: context.fetchFor({ cert, key, ...(ca !== undefined && { ca }) }) };
    }
  }
}
