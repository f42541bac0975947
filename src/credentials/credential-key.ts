import { randomBytes } from 'node:crypto';
import { ContextError } from '../errors.js';

/** The environment variable a credential file's key is read from when no key is passed. */
export const credentialKeyEnv = 'MCP_CONTEXT_CREDENTIAL_KEY';

const keyBytes = 32;

/** A fresh random AES-256 key, base64, for `MCP_CONTEXT_CREDENTIAL_KEY` or the `key` option. */
export function generateCredentialKey(): string {
  return randomBytes(keyBytes).toString('base64');
}

/**
 * The 32-byte key from bytes, 64 hex digits or base64. Errors name where the key came from and
 * what is wrong with it, never the key.
 */
export function parseCredentialKey(
  key: string | Uint8Array | undefined,
  keyEnv: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Buffer {
  const source = key === undefined ? `the environment variable ${keyEnv}` : 'the key option';
  const material = key ?? env[keyEnv];
  if (material === undefined || material === '') {
    throw new ContextError('CREDENTIAL_MISSING', `no credential file key: pass \`key\` or set ${keyEnv}`, {
      field: 'key',
    });
  }
  const bytes =
    typeof material !== 'string'
      ? Buffer.from(material)
      : /^[0-9a-fA-F]{64}$/.test(material.trim())
        ? Buffer.from(material.trim(), 'hex')
        : Buffer.from(material.trim(), 'base64');
  if (bytes.length !== keyBytes) {
    throw new ContextError(
      'INVALID_OPTION',
      `${source} must be ${keyBytes} bytes (64 hex digits or base64); it is ${bytes.length} bytes`,
      { field: 'key' },
    );
  }
  return bytes;
}
