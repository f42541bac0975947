// The `mcp-resource-context/credentials` entry: OAuth stores and the authorizer a hosted server's sign-in calls, encrypted credential files, mutual TLS, and the secret values a config may name.
// Any new export added here becomes public API. Use named exports, not wildcards.

export type { AuthConfig, AuthConfigInput } from './credentials/auth-config.js';
export { createMtlsFetch, type MtlsOptions } from './credentials/create-mtls-fetch.js';
export { credentialFileOAuthStore } from './credentials/credential-file-oauth-store.js';
export { credentialKeyEnv, generateCredentialKey } from './credentials/credential-key.js';
export type { CredentialSource } from './credentials/credential-source.js';
export {
  type CredentialFile,
  type CredentialFileOptions,
  openCredentialFile,
  writeCredentialFile,
} from './credentials/encrypted-credential-file.js';
export { MemoryOAuthStore } from './credentials/memory-oauth-store.js';
export type {
  AuthorizationAnswer,
  AuthorizationRequest,
  OAuthAuthorizer,
  OAuthRecordKind,
  OAuthStore,
  OAuthSubject,
} from './credentials/oauth-authorizer.js';
export type { SecretValue } from './credentials/secret-value.js';
