/** Whose authorization a record belongs to: a server, and for per-user servers the principal. */
export interface OAuthSubject {
  readonly server: string;
  /** The host's user id; absent for a server shared by everyone. */
  readonly principal?: string;
}

/** What an OAuth session keeps between runs. */
export type OAuthRecordKind = 'tokens' | 'client' | 'verifier' | 'discovery';

/**
 * Where tokens, client registrations, PKCE verifiers and discovery results are kept, per
 * (server, principal). Values are JSON data; keep them exactly as given (the SDK stamps them
 * with the authorization server they belong to). `credentialFileOAuthStore` keeps them in the
 * encrypted credential file; `MemoryOAuthStore` for tests and short-lived hosts.
 */
export interface OAuthStore {
  get(subject: OAuthSubject, kind: OAuthRecordKind): Promise<unknown> | unknown;
  set(subject: OAuthSubject, kind: OAuthRecordKind, value: unknown): Promise<void> | void;
  /** Forgets the given kinds (all when omitted): logout. */
  delete(subject: OAuthSubject, kinds?: readonly OAuthRecordKind[]): Promise<void> | void;
}

/** The user must visit `url` (the authorization server's page) to grant access. */
export interface AuthorizationRequest extends OAuthSubject {
  readonly url: URL;
}

/** What came back to the redirect URL. */
export interface AuthorizationAnswer {
  readonly code: string;
  /** The `state` parameter, when the host has it: checked against the one sent. */
  readonly state?: string;
  /**
   * The `iss` parameter (RFC 9207), when the redirect carried one: it must be the authorization
   * server's issuer, exactly. Pass it whenever it is there: an authorization server that says it
   * sends one (`authorization_response_iss_parameter_supported`) is not believed without it.
   */
  readonly iss?: string;
}

/**
 * The host's part of the OAuth authorization-code flow (MCP authorization spec): the library
 * does discovery, registration, PKCE, the token exchange, refresh and step-up; the host says
 * where the user comes back to and how its code gets here, and keeps the records.
 */
export interface OAuthAuthorizer {
  /** The redirect URI registered for this client (e.g. `https://host.example/oauth/callback`). */
  readonly redirectUrl: string;
  readonly store: OAuthStore;
  /**
   * Whose users `store` holds tokens for (e.g. the customer's id), the same on every replica
   * that shares that store. Caches share an OAuth server's content only between registries
   * whose authorizers name the same tenant (shared tiers included); without it, only between
   * registries holding this very store object.
   */
  readonly tenant?: string;
  /**
   * Called when the user must authorize; `request.url` is a `URL` object. Return
   * `{ code, state, iss }` (or the code alone, as a string) if the host can obtain it now (a CLI
   * waiting on its loopback redirect): `state`, when given, is checked against the one sent, and
   * `iss` against the authorization server's issuer (RFC 9207).
   * Return undefined and the operation fails with AUTH_REQUIRED carrying the URL as a string
   * in its `value`, for the host to show; it then calls
   * `McpServerRegistry.completeAuthorization` when the code arrives. Anything else (no code,
   * an empty one) is INVALID_OPTION naming `authorize`.
   */
  authorize?(request: AuthorizationRequest): Promise<AuthorizationAnswer | string | undefined>;
}
