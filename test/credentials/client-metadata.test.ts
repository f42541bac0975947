import { describe, expect, it } from 'vitest';
import { MemoryOAuthStore } from '../../src/credentials/memory-oauth-store.js';
import { StoredOAuthProvider } from '../../src/credentials/stored-oauth-provider.js';

// MCP 2026-07-28 (SEP-837): a dynamic registration names its application_type, as OpenID
// Connect's registration defines it: native clients redirect to a loopback host or a scheme of
// their own, web clients to an https origin.
function metadataFor(redirectUrl: string) {
  return new StoredOAuthProvider({
    subject: { server: 'notes' },
    authorizer: { redirectUrl, store: new MemoryOAuthStore(), authorize: async () => ({ code: 'x' }) },
    clientName: 'mcp-resource-context',
    onSecret: () => undefined,
  }).clientMetadata as Record<string, unknown>;
}

describe('the client metadata of a dynamic registration', () => {
  it.each([
    ['https://host.example/oauth/callback', 'web'],
    ['http://host.example/oauth/callback', 'web'],
    ['http://localhost:3000/callback', 'native'],
    ['http://127.0.0.1:1/callback', 'native'],
    ['http://[::1]:8080/callback', 'native'],
    ['com.example.app:/callback', 'native'],
  ])('redirect %s: application_type %s', (redirectUrl, applicationType) => {
    expect(metadataFor(redirectUrl)).toMatchObject({
      application_type: applicationType,
      redirect_uris: [redirectUrl],
    });
  });
});
