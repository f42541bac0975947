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
  readonly env?: Readonly<Record<string, string>>;
  readonly headers?: Readonly<Record<string, string>>;
  readonly auth?: AuthConfig;
  /** Env variables and headers, by name, whose values are not secrets. */
  readonly notSecret?: readonly string[];
}

/**
 * Every credential value a server entry holds inline, known before anything connects: each stdio
 * `env` value and each header value, whatever its name (a key in `X-Custom` is as secret as one
 * in `Authorization`), and the inline values of `auth`. `{ secret }` and `{ env }` references are
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
  return [...named(config.env), ...named(config.headers), ...(inline as string[])];
}
