import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuthConfig } from './auth-config.js';
import type { SecretRedactor } from './secret-redactor.js';
import { resolveSecretValue, type SecretContext } from './secret-value.js';

/** What a remote transport needs to authenticate: extra headers, an OAuth provider, or a fetch. */
export interface TransportAuth {
  readonly headers: Record<string, string>;
  readonly authProvider?: OAuthClientProvider;
  /** A fetch presenting a TLS client certificate (mTLS). */
  readonly fetch?: FetchLike;
}

export interface TransportAuthContext extends SecretContext {
  /** Learns every secret resolved here (and every OAuth token obtained later). */
  readonly redactor: SecretRedactor;
}

// Header names whose values are credentials even when given as plain `headers`.
const sensitiveHeaderPattern = /authorization|cookie|token|secret|key|password|credential/i;

/**
 * Resolves a remote server's `auth` (and secret-looking plain `headers`) into transport options.
 * Runs on every connect, so a rotated secret reaches the next session. Every value resolved is
 * handed to the redactor before anything is sent.
 */
export async function resolveTransportAuth(
  auth: AuthConfig | undefined,
  headers: Readonly<Record<string, string>> | undefined,
  context: TransportAuthContext,
): Promise<TransportAuth> {
  const { redactor } = context;
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (sensitiveHeaderPattern.test(name)) redactor.add(value);
  }
  const resolve = async (value: Parameters<typeof resolveSecretValue>[0], field: string) => {
    const resolved = await resolveSecretValue(value, `auth.${field}`, context);
    redactor.add(resolved);
    return resolved;
  };
  const base = { ...headers };
  if (auth === undefined) return { headers: base };
  switch (auth.type) {
    case 'bearer':
      return { headers: { ...base, Authorization: `Bearer ${await resolve(auth.token, 'token')}` } };
    case 'apiKey':
      return { headers: { ...base, [auth.header]: await resolve(auth.value, 'value') } };
    case 'oauth-client-credentials': {
      const clientId = await resolve(auth.clientId, 'clientId');
      const clientSecret = await resolve(auth.clientSecret, 'clientSecret');
      redactor.addBasicPair(clientId, clientSecret);
      const { OAuthClientCredentialsProvider } = await import('./oauth-client-credentials.js');
      const issuer = auth.issuer ?? new URL(auth.tokenUrl as string).origin;
      return {
        headers: base,
        authProvider: new OAuthClientCredentialsProvider({
          clientId,
          clientSecret,
          issuer,
          ...(auth.tokenUrl !== undefined && { tokenUrl: auth.tokenUrl }),
          ...(auth.scope !== undefined && { scope: auth.scope }),
          onAccessToken: (token) => redactor.add(token),
        }),
      };
    }
    case 'mtls': {
      const cert = await resolveSecretValue(auth.cert, 'auth.cert', context);
      const key = await resolve(auth.key, 'key');
      const ca = auth.ca === undefined ? undefined : await resolveSecretValue(auth.ca, 'auth.ca', context);
      // node:https is loaded only for servers that use a client certificate.
      const { createMtlsFetch } = await import('./create-mtls-fetch.js');
      return { headers: base, fetch: createMtlsFetch({ cert, key, ...(ca !== undefined && { ca }) }) };
    }
  }
}
