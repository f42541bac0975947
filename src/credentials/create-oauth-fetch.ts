import type { FetchLike } from '@modelcontextprotocol/client';
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/client';
import { ContextError } from '../errors.js';
import { metadataIssuerMismatchOf } from './check-metadata-issuer.js';
import type { AuthorizationAnswer, OAuthAuthorizer, OAuthSubject } from './oauth-authorizer.js';
import { resourceMismatchOf } from './resource-mismatch.js';
import type { StoredOAuthProvider } from './stored-oauth-provider.js';

export interface OAuthFetchOptions {
  readonly subject: OAuthSubject;
  readonly serverUrl: string;
  readonly provider: StoredOAuthProvider;
  readonly authorizer: OAuthAuthorizer;
  /** Every request goes out through this (the endpoint-policy fetch): MCP and OAuth alike. */
  readonly fetch: FetchLike;
}

/** Scope step-ups one request may trigger (MCP spec, "Scope Challenge Handling": bounded). */
const maxStepUps = 2;

/**
 * A fetch for the MCP transport that carries the access token and, on a 401 or a 403
 * `insufficient_scope` challenge, runs the SDK's `auth()` (discovery from the challenge's
 * `resource_metadata` and the well-known fallbacks, registration, PKCE, the `resource`
 * indicator, scope selection, refresh) and sends the request once more. When the user must
 * authorize, the host's `authorize` is asked for the code; if it has none, the request fails
 * with AUTH_REQUIRED and the URL to visit. Authorizations are one at a time.
 */
export function createOAuthFetch(options: OAuthFetchOptions): FetchLike & {
  complete(answer: AuthorizationAnswer): Promise<void>;
} {
  const { provider } = options;
  let running: Promise<void> | undefined;
  const authorizeOnce = (challenge: Challenge) => {
    running ??= authorize(options, challenge).finally(() => {
      running = undefined;
    });
    return running;
  };
  const send = async (input: string | URL, init: RequestInit | undefined) => {
    const headers = new Headers(init?.headers);
    const tokens = await provider.tokens();
    if (tokens !== undefined) headers.set('authorization', `Bearer ${tokens.access_token}`);
    return options.fetch(input, { ...init, headers });
  };
  const fetchWithOAuth = async (input: string | URL, init?: RequestInit): Promise<Response> => {
    let response = await send(input, init);
    if (response.status === 401) {
      await response.body?.cancel();
      // A token the server refused (one is held: it went with the request): the resource may
      // name another authorization server now. Asked only here, off the path of every request.
      const rejectedToken = (await provider.tokens()) !== undefined;
      await authorizeOnce({ ...challengeOf(response, false), rejectedToken });
      response = await send(input, init);
    }
    const seen = new Set<string>();
    for (let stepUps = 0; response.status === 403; stepUps++) {
      const challenge = challengeOf(response, true);
      if (challenge.error !== 'insufficient_scope') break;
      await response.body?.cancel();
      // A step-up that cannot help is not asked for: the user would be sent to grant in vain.
      const futile = await futileStepUp(provider, challenge, seen.has(challenge.header), stepUps);
      if (futile !== undefined) throw stepUpFailed(options.subject, challenge, futile);
      seen.add(challenge.header);
      await authorizeOnce(challenge);
      response = await send(input, init);
    }
    return response;
  };
  return Object.assign(fetchWithOAuth, {
    complete: (answer: AuthorizationAnswer) => exchangeCode(options, answer, {}),
  });
}

// --- Internal helpers ---

interface Challenge {
  readonly header: string;
  readonly resourceMetadataUrl?: URL;
  readonly scope?: string;
  readonly error?: string;
  readonly stepUp: boolean;
  /** The 401 answered a request that carried a token. */
  readonly rejectedToken?: boolean;
}

/**
 * Why a step-up for this 403 `insufficient_scope` challenge cannot succeed, or undefined when it
 * may: the token already holds every scope challenged (the server refuses for another reason),
 * the same challenge came back after a step-up (the authorization server did not grant it), or
 * the request has had its step-ups (MCP spec, "Scope Challenge Handling": bounded).
 */
async function futileStepUp(
  provider: StoredOAuthProvider,
  challenge: Challenge,
  seenBefore: boolean,
  stepUps: number,
): Promise<string | undefined> {
  const granted = new Set(((await provider.tokens())?.scope ?? '').split(' ').filter(Boolean));
  const wanted = (challenge.scope ?? '').split(' ').filter(Boolean);
  if (wanted.length > 0 && wanted.every((scope) => granted.has(scope))) {
    return 'the token already holds it, and the server still refuses';
  }
  if (seenBefore) return 'the authorization server did not grant it';
  if (stepUps >= maxStepUps) return `${maxStepUps} step-ups did not satisfy the server`;
  return undefined;
}

function stepUpFailed(subject: OAuthSubject, challenge: Challenge, why: string): ContextError {
  const scope = challenge.scope ?? '';
  return new ContextError(
    'AUTH_STEP_UP_FAILED',
    `server "${subject.server}" answered 403 insufficient_scope for scope "${scope}": ${why}`,
    { server: subject.server, field: 'scope', value: scope, httpStatus: 403 },
  );
}

function challengeOf(response: Response, stepUp: boolean): Challenge {
  const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(response);
  return {
    header: response.headers.get('www-authenticate') ?? '',
    stepUp,
    ...(resourceMetadataUrl !== undefined && { resourceMetadataUrl }),
    ...(scope !== undefined && { scope }),
    ...(error !== undefined && { error }),
  };
}

async function authorize(options: OAuthFetchOptions, challenge: Challenge): Promise<void> {
  const { provider, authorizer, subject } = options;
  // The SDK falls back to other discovery URLs when one fails; a URL the endpoint policy
  // refused must fail the authorization instead (the server pointed us somewhere forbidden).
  let denied: unknown;
  const fetchFn: FetchLike = async (url, init) => {
    try {
      return await options.fetch(url, init);
    } catch (error) {
      if (ContextError.isInstance(error) && error.code === 'ENDPOINT_DENIED') denied ??= error;
      throw error;
    }
  };
  const parameters = {
    serverUrl: options.serverUrl,
    fetchFn,
    ...(challenge.resourceMetadataUrl !== undefined && {
      resourceMetadataUrl: challenge.resourceMetadataUrl,
    }),
    ...(challenge.scope !== undefined && { scope: challenge.scope }),
  };
  const run = () =>
    auth(provider, parameters).then(
      (result) => {
        if (denied !== undefined) throw denied;
        return result;
      },
      (error: unknown) => {
        throw (
          denied ??
          resourceMismatchOf(error, subject.server) ??
          metadataIssuerMismatchOf(error, subject.server) ??
          error
        );
      },
    );
  // Discovery afresh (SEP-2352): a cached one would send us back to the old authorization server.
  if (challenge.rejectedToken) await provider.rediscover();
  const result = challenge.stepUp ? await provider.withoutRefresh(run) : await run();
  if (result === 'AUTHORIZED') return;
  const url = provider.takeAuthorizationUrl();
  if (url === undefined) throw new Error('the authorization server gave no authorization URL');
  const answer = await authorizer.authorize?.({ ...subject, url });
  if (answer === undefined) throw authRequired(subject, url);
  await exchangeCode(options, answerOf(answer, subject.server), parameters);
}

/**
 * The host's answer as `{ code, state? }`: a bare string is the code (hosts naturally return
 * "the code"); an answer without a non-empty code is the host's mistake, said as such, not a
 * token request the server would refuse as AUTH_FAILED.
 */
function answerOf(answer: unknown, server: string): AuthorizationAnswer {
  if (typeof answer === 'string' && answer !== '') return { code: answer };
  if (typeof answer === 'object' && answer !== null) {
    const { code, state, iss } = answer as { code?: unknown; state?: unknown; iss?: unknown };
    const optional = (value: unknown) => value === undefined || typeof value === 'string';
    if (typeof code === 'string' && code !== '' && optional(state) && optional(iss)) {
      return {
        code,
        ...(typeof state === 'string' && { state }),
        ...(typeof iss === 'string' && { iss }),
      };
    }
  }
  throw new ContextError(
    'INVALID_OPTION',
    `server "${server}": authorize() must return { code, state?, iss? } or the code as a non-empty string (or undefined to ask the host later)`,
    { server, field: 'authorize' },
  );
}

async function exchangeCode(
  options: OAuthFetchOptions,
  answer: AuthorizationAnswer,
  parameters: { resourceMetadataUrl?: URL; scope?: string },
): Promise<void> {
  const expected = await options.provider.expectedState();
  if (answer.state !== undefined && expected !== undefined && answer.state !== expected) {
    throw new ContextError(
      'AUTH_FAILED',
      `server "${options.subject.server}": the authorization answer's state does not match the request`,
      { server: options.subject.server, field: 'state' },
    );
  }
  await checkIssuer(options, answer);
  const result = await auth(options.provider, {
    serverUrl: options.serverUrl,
    fetchFn: options.fetch,
    authorizationCode: answer.code,
    // Checked above with our own message; the SDK checks it again before redeeming the code.
    ...(answer.iss !== undefined && { iss: answer.iss }),
    ...parameters,
  });
  await options.authorizer.store.delete(options.subject, ['verifier']);
  if (result !== 'AUTHORIZED') {
    throw new ContextError('AUTH_FAILED', `server "${options.subject.server}": the code was not accepted`, {
      server: options.subject.server,
    });
  }
}

/**
 * RFC 9207 (MCP 2026-07-28, SEP-2468): an answer's `iss` must be the issuer of the authorization
 * server the flow went to, compared exactly (no case folding, default ports or trailing
 * slashes), whether or not the server said it sends one; and a server that says it does
 * (`authorization_response_iss_parameter_supported`) is not believed without it. An answer from
 * another authorization server (a mix-up attack) is never redeemed.
 */
async function checkIssuer(options: OAuthFetchOptions, answer: AuthorizationAnswer): Promise<void> {
  const server = options.subject.server;
  const metadata = (await options.provider.discoveryState())?.authorizationServerMetadata as
    | { issuer?: unknown; authorization_response_iss_parameter_supported?: unknown }
    | undefined;
  const issuer = typeof metadata?.issuer === 'string' ? metadata.issuer : undefined;
  if (answer.iss !== undefined && answer.iss !== issuer) {
    throw new ContextError(
      'AUTH_FAILED',
      `server "${server}": the authorization answer's iss ${JSON.stringify(answer.iss)} is not the issuer of the authorization server the user was sent to (${JSON.stringify(issuer ?? 'unknown')})`,
      { server, field: 'iss' },
    );
  }
  if (answer.iss === undefined && metadata?.authorization_response_iss_parameter_supported === true) {
    throw new ContextError(
      'AUTH_FAILED',
      `server "${server}": the authorization server sends iss with its answers (authorization_response_iss_parameter_supported), and this answer has none: pass the redirect's iss in the answer`,
      { server, field: 'iss' },
    );
  }
}

function authRequired(subject: OAuthSubject, url: URL): ContextError {
  const who = subject.principal === undefined ? '' : ` for principal "${subject.principal}"`;
  return new ContextError(
    'AUTH_REQUIRED',
    `server "${subject.server}" needs authorization${who}: the user must visit ${url.href}`,
    { server: subject.server, field: 'authorization', value: url.href },
  );
}
