import type { AuthConfig } from './auth-config.js';

/** Fields of `auth` whose inline values are credentials (certificates and CAs are public). */
const secretAuthFields = [
  'token',
  'value',
  'clientId',
  'clientSecret',
  'privateKey',
  'idpClientId',
  'idpClientSecret',
  'idToken',
  'key',
] as const;

/** The parts of a server entry that can carry credentials. */
export interface SecretBearingConfig {
  /** A remote server's URL: its userinfo (`https://user:secret@host/mcp`) is a credential. */
  readonly url?: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly auth?: AuthConfig;
  /** Env variables and headers, by name, whose values are not secrets. */
  readonly notSecret?: readonly string[];
}

/**
 * Every credential value a server entry holds inline, known before anything connects: each stdio
 * `env` value and each header value, whatever its name (a key in `X-Custom` is as secret as one
 * in `Authorization`), the userinfo of the URL, and the inline values of `auth`. `{ secret }` and `{ env }` references are
 * added when they are resolved, on connect. Names listed in `notSecret` are left out.
 */
export function configuredSecrets(config: SecretBearingConfig): string[] {
  const exempt = new Set((config.notSecret ?? []).map((name) => name.toLowerCase()));
  const named = (entries: Readonly<Record<string, string>> | undefined) =>
    Object.entries(entries ?? {})
      .filter(([name]) => !exempt.has(name.toLowerCase()))
      .map(([, value]) => value);
  const auth = (config.auth ?? {}) as Partial<Record<(typeof secretAuthFields)[number], unknown>>;
  const inline = secretAuthFields.map((field) => auth[field]).filter((value) => typeof value === 'string');
  return [
    ...named(config.env),
    ...named(config.headers),
    ...userinfoSecretsOf(config.url),
    ...(inline as string[]),
  ];
}

// --- Internal helpers ---

/**
 * The password, or a lone user name (`https://TOKEN@host`: the token itself), and the whole
 * `user:password` pair, each as written in the URL (percent-encoded) and decoded. The decoded pair
 * is what node:http sends as `Authorization: Basic` (the redactor adds its base64 form), so a
 * server that echoes its request headers gives it back in that form. A user name beside a
 * password stays: it names an account, and removing a short one from content would blank words.
 */
function userinfoSecretsOf(url: string | undefined): string[] {
  if (url === undefined) return [];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const { username, password } = parsed;
  if (username === '' && password === '') return [];
  const written = [password === '' ? username : password, `${username}:${password}`];
  return [...new Set([...written, ...written.map(decodeQuietly)])].filter((secret) => secret !== ':');
}

function decodeQuietly(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
