import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { describe, expect, it } from 'vitest';
import { MemoryOAuthStore } from '../../src/credentials/memory-oauth-store.js';
import { StoredOAuthProvider } from '../../src/credentials/stored-oauth-provider.js';

// SEP-2352 and RFC 8414 §3.3 at the provider the SDK's auth() drives: what it keeps of a
// discovery. End to end, the conformance suite's auth/authorization-server-migration and
// auth/metadata-issuer-mismatch drive the same code through the registry.
function provider() {
  return new StoredOAuthProvider({
    subject: { server: 'notes' },
    authorizer: {
      redirectUrl: 'http://127.0.0.1:3000/callback',
      store: new MemoryOAuthStore(),
      authorize: async () => ({ code: 'x' }),
    },
    clientName: 'mcp-resource-context',
    onSecret: () => undefined,
  });
}

function discovery(authorizationServerUrl: string, issuer = authorizationServerUrl): OAuthDiscoveryState {
  return {
    authorizationServerUrl,
    authorizationServerMetadata: {
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      response_types_supported: ['code'],
    },
  };
}

const tokens = { access_token: 'old-access', refresh_token: 'old-refresh', token_type: 'Bearer' };

describe('what the OAuth provider keeps of a discovery', () => {
  it('a rejected token’s rediscovery naming another authorization server drops the old one’s tokens', async () => {
    const oauth = provider();
    await oauth.saveDiscoveryState(discovery('https://as-one.example'));
    await oauth.saveTokens(tokens);

    await oauth.rediscover();
    const forgotten = await oauth.discoveryState();
    const keptUntilKnown = await oauth.tokens();
    await oauth.saveDiscoveryState(discovery('https://as-two.example'));

    expect(forgotten).toBeUndefined();
    expect(keptUntilKnown?.refresh_token).toBe('old-refresh');
    expect(await oauth.tokens()).toBeUndefined();
    expect((await oauth.discoveryState())?.authorizationServerUrl).toBe('https://as-two.example');
  });

  it('the same authorization server again keeps the tokens (a refresh can use them)', async () => {
    const oauth = provider();
    await oauth.saveDiscoveryState(discovery('https://as-one.example'));
    await oauth.saveTokens(tokens);

    await oauth.rediscover();
    await oauth.saveDiscoveryState(discovery('https://as-one.example'));

    expect((await oauth.tokens())?.refresh_token).toBe('old-refresh');
  });

  it('metadata naming another issuer is refused and not kept; a trailing slash of a bare origin is the same issuer', async () => {
    const oauth = provider();

    const refused = await oauth
      .saveDiscoveryState(discovery('https://as-one.example', 'https://attacker.example'))
      .catch((error: unknown) => error);
    const stored = await oauth.discoveryState();
    await oauth.saveDiscoveryState(discovery('https://as-one.example/', 'https://as-one.example'));

    expect(refused).toMatchObject({ code: 'AUTH_FAILED', server: 'notes', field: 'issuer' });
    expect(stored).toBeUndefined();
    expect((await oauth.discoveryState())?.authorizationServerUrl).toBe('https://as-one.example/');
  });
});
