import { z } from 'zod';
import { ContextError } from '../errors.js';
import type { CredentialSource } from './credential-source.js';

/**
 * A credential value in a server config: given inline, or — better, since configs get shared —
 * named in the encrypted credential file (`{ secret: "name" }`) or the environment (`{ env: "NAME" }`).
 */
export const secretValueSchema = z.union([
  z.string().min(1),
  z.strictObject({ secret: z.string().min(1) }),
  z.strictObject({ env: z.string().min(1) }),
]);

export type SecretValue = z.output<typeof secretValueSchema>;

export interface SecretContext {
  readonly server: string;
  /** The encrypted credential file (or any other source), for `{ secret }` references. */
  readonly credentials?: CredentialSource;
  /** For `{ env }` references; defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The value a reference stands for. A missing one is CREDENTIAL_MISSING naming the config field
 * and the reference — never a value.
 */
export async function resolveSecretValue(
  value: SecretValue,
  field: string,
  context: SecretContext,
): Promise<string> {
  if (typeof value === 'string') return value;
  if ('env' in value) {
    const found = (context.env ?? process.env)[value.env];
    if (found === undefined || found === '') {
      throw missing(context.server, field, `the environment variable ${value.env} is not set`, value);
    }
    return found;
  }
  if (!context.credentials) {
    throw missing(
      context.server,
      field,
      `it names the secret "${value.secret}" but the registry has no credential file`,
      value,
    );
  }
  const found = await context.credentials.get(value.secret);
  if (found === undefined || found === '') {
    throw missing(context.server, field, `the credential file has no secret "${value.secret}"`, value);
  }
  return found;
}

// --- Internal helpers ---

function missing(server: string, field: string, why: string, reference: object): ContextError {
  return new ContextError('CREDENTIAL_MISSING', `server "${server}": ${field} cannot be resolved: ${why}`, {
    server,
    field,
    value: reference,
  });
}
