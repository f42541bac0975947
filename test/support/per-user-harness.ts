import { onTestFinished } from 'vitest';
import { type OAuthServerOptions, startOAuthServer, testUserHeader } from '../../fixtures/index.js';
import { MemoryOAuthStore } from '../../src/credentials/memory-oauth-store.js';
import type { AuthorizationRequest } from '../../src/credentials/oauth-authorizer.js';
import { startProviderHarness } from './provider-harness.js';

/** Each principal's browser signs in as that principal (the OAuth fixture's test-user header). */
export async function signInAsPrincipal(request: AuthorizationRequest) {
  const response = await fetch(request.url, {
    redirect: 'manual',
    headers: { [testUserHeader]: request.principal ?? 'nobody' },
  });
  const back = new URL(response.headers.get('location') ?? '');
  return { code: back.searchParams.get('code') ?? '', state: back.searchParams.get('state') ?? '' };
}

/**
 * The provider harness with `mine`, a per-user OAuth server (each principal signs in as itself),
 * and `private://notes` of `mine` pinned for the `support` pipeline.
 */
export async function startPerUserHarness(
  options: Pick<
    NonNullable<Parameters<typeof startProviderHarness>[1]>,
    'policy' | 'provider' | 'registry'
  > & {
    /** Options of the OAuth fixture behind `mine` (a read delay). */
    readonly server?: OAuthServerOptions;
  } = {},
) {
  const { server: serverOptions, registry, ...rest } = options;
  const server = await startOAuthServer(serverOptions);
  onTestFinished(() => server.close());
  const harness = await startProviderHarness('memory', {
    extraServers: { mine: { type: 'http', url: server.url, auth: { type: 'oauth', perUser: true } } },
    registry: {
      reconnect: false,
      authorizer: {
        redirectUrl: 'http://127.0.0.1:1/callback',
        store: new MemoryOAuthStore(),
        authorize: signInAsPrincipal,
      },
      ...registry,
    },
    ...rest,
  });
  await harness.attachments.pin({ scope: { pipelineId: 'support' }, server: 'mine', uri: 'private://notes' });
  return { server, ...harness };
}
