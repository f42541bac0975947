import { createHash, randomUUID } from 'node:crypto';
import type { CredentialSource } from '../credentials/credential-source.js';
import type { OAuthAuthorizer } from '../credentials/oauth-authorizer.js';
import { resolveSecretValue, type SecretValue } from '../credentials/secret-value.js';
import type { EndpointPolicy } from './endpoint-policy.js';
import type { McpServerConfig } from './server-config.js';

/** What a registry knows beyond a server's entry that decides what its reads answer. */
export interface IdentityContext {
  readonly credentials?: CredentialSource;
  readonly authorizer?: OAuthAuthorizer;
  readonly endpointPolicy: EndpointPolicy;
  /** The registry's cap on a read's content bytes: a read cut shorter is other content. */
  readonly maxReadBytes: number;
}

/**
 * Which server a configured name stands for, as caches key it: two registries (or two
 * replicas) agree on it exactly when their entries reach the same server as the same tenant,
 * so they may share its content; a server of the same name anywhere else never does.
 *
 * It is a SHA-256 over the name, where the server is (a remote server's URL and the endpoint
 * policy that admits it, a stdio server's command, arguments, directory and environment), the
 * credentials it is reached with — every `{ secret }` and `{ env }` reference resolved to its
 * value, so two configs that name the same secret in different vaults differ — and what shapes
 * a read (`maxReadBytes`, `plainTextErrors`). No value appears in it in clear.
 *
 * What a config cannot describe is told apart per object, within this process only: an
 * in-process `createTransport` factory, and an OAuth token store (the user's tokens decide what
 * a read answers) unless the authorizer names its `tenant` — the same on every replica sharing
 * that store, so their caches share too.
 *
 * Answered at once unless a `{ secret }` comes from a source that answers asynchronously; a
 * reference that cannot be resolved rejects (CREDENTIAL_MISSING), as connecting would.
 */
export function serverIdentity(
  name: string,
  config: McpServerConfig,
  context: IdentityContext,
): string | Promise<string> {
  const resolving: Promise<void>[] = [];
  const resolve: Resolve = (value, field, into, key) => {
    const found =
      'env' in value
        ? process.env[value.env]
        : context.credentials !== undefined
          ? context.credentials.get(value.secret)
          : undefined;
    // A value the source answers at once is taken as it stands (when present); a missing one
    // or one still coming is resolved the way connecting resolves it, errors included.
    if (typeof found === 'string' && found !== '') {
      into[key] = found;
      return;
    }
    const pending = resolveSecretValue(value, field, {
      server: name,
      ...(context.credentials !== undefined && { credentials: context.credentials }),
    }).then((resolved) => {
      into[key] = resolved;
    });
    resolving.push(pending);
  };
  const described = describe(name, config, context, resolve);
  const digest = () => `server:${createHash('sha256').update(canonicalJson(described)).digest('base64url')}`;
  if (resolving.length === 0) return digest();
  return Promise.all(resolving).then(digest);
}

// --- Internal helpers ---

type Resolve = (
  value: Exclude<SecretValue, string>,
  field: string,
  into: Record<string, unknown>,
  key: string,
) => void;

// Objects a config cannot describe, numbered per process; the process's own random id keeps two
// processes' numbers apart (their objects are never the same server).
const processId = randomUUID();
const objectIds = new WeakMap<object, number>();
let lastObjectId = 0;

function objectIdOf(value: object): string {
  let id = objectIds.get(value);
  if (id === undefined) {
    id = ++lastObjectId;
    objectIds.set(value, id);
  }
  return `${processId}/${id}`;
}

/** The facts the identity hashes (see canonicalJson for their order). */
function describe(
  name: string,
  config: McpServerConfig,
  context: IdentityContext,
  resolve: Resolve,
): Record<string, unknown> {
  const reads = { maxReadBytes: context.maxReadBytes, plainTextErrors: config.plainTextErrors };
  if ('command' in config) {
    return {
      version: 1,
      name,
      reads,
      stdio: { command: config.command, args: config.args, cwd: config.cwd ?? null, env: config.env ?? {} },
    };
  }
  if ('createTransport' in config) {
    return { version: 1, name, reads, transport: objectIdOf(config.createTransport) };
  }
  const auth: Record<string, unknown> = {};
  if (config.auth !== undefined) {
    for (const [field, value] of Object.entries(config.auth)) {
      if (isSecretValue(value)) resolve(value, `auth.${field}`, auth, field);
      else auth[field] = value;
    }
    if (config.auth.type === 'oauth') {
      const authorizer = context.authorizer;
      auth.tokens =
        authorizer?.tenant !== undefined
          ? { tenant: authorizer.tenant }
          : authorizer === undefined
            ? null
            : { store: objectIdOf(authorizer.store) };
    }
  }
  return {
    version: 1,
    name,
    reads,
    remote: {
      url: new URL(config.url).href,
      headers: config.headers ?? {},
      auth,
      endpointPolicy: {
        preset: context.endpointPolicy.preset,
        denyHosts: [...context.endpointPolicy.denyHosts].sort(),
      },
    },
  };
}

function isSecretValue(value: unknown): value is Exclude<SecretValue, string> {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.keys(value).length === 1 &&
    (typeof (value as { secret?: unknown }).secret === 'string' ||
      typeof (value as { env?: unknown }).env === 'string')
  );
}

/**
 * JSON with every object's keys sorted: the same facts give the same text whatever order they
 * were written (or resolved) in. Header names are compared as written: HTTP sends them as given.
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
