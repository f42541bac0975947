import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { ContextError } from '../errors.js';
import { credentialKeyEnv, parseCredentialKey } from './credential-key.js';
import type { CredentialSource } from './credential-source.js';

export interface CredentialFileOptions {
  /** 32 bytes, or 64 hex digits, or base64. Default: the environment variable named by `keyEnv`. */
  readonly key?: string | Uint8Array;
  /** Default `MCP_CONTEXT_CREDENTIAL_KEY`. */
  readonly keyEnv?: string;
}

/** An opened (decrypted) credential file: the `{ secret: "name" }` source for a registry. */
export interface CredentialFile extends CredentialSource {
  readonly path: string;
  /** The names it holds (never the values). */
  readonly names: readonly string[];
  get(name: string): string | undefined;
}

const format = 'mcp-resource-context/credentials';
const version = 1;
const cipherName = 'aes-256-gcm';
// The header is authenticated too: changing the format, version or cipher fails like a changed byte.
const additionalData = Buffer.from(`${format};${version};${cipherName}`);

const envelopeSchema = z.strictObject({
  format: z.literal(format),
  version: z.literal(version),
  cipher: z.literal(cipherName),
  iv: z.base64(),
  tag: z.base64(),
  data: z.base64(),
});

const secretsSchema = z.record(z.string().min(1), z.string());

/**
 * Writes secrets encrypted at rest with AES-256-GCM (a fresh 96-bit IV per write), readable by
 * the owner only (0600), replacing the file atomically.
 */
export async function writeCredentialFile(
  path: string,
  secrets: Readonly<Record<string, string>>,
  options: CredentialFileOptions = {},
): Promise<void> {
  const parsed = secretsSchema.safeParse(secrets);
  if (!parsed.success) {
    throw new ContextError('INVALID_OPTION', 'secrets must map names to string values', { field: 'secrets' });
  }
  const key = parseCredentialKey(options.key, options.keyEnv ?? credentialKeyEnv);
  const iv = randomBytes(12);
  const cipher = createCipheriv(cipherName, key, iv);
  cipher.setAAD(additionalData);
  const data = Buffer.concat([cipher.update(JSON.stringify(parsed.data), 'utf8'), cipher.final()]);
  const envelope = {
    format,
    version,
    cipher: cipherName,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    data: data.toString('base64'),
  };
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temporary, `${JSON.stringify(envelope, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/**
 * Reads and decrypts a credential file. Any change to the file — a flipped bit, a swapped IV
 * or tag, an edited header — and a wrong key fail the GCM check: CREDENTIAL_FILE_INVALID, with
 * no partial result.
 */
export async function openCredentialFile(
  path: string,
  options: CredentialFileOptions = {},
): Promise<CredentialFile> {
  const key = parseCredentialKey(options.key, options.keyEnv ?? credentialKeyEnv);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ContextError(
      'CREDENTIAL_FILE_INVALID',
      `cannot read the credential file ${path}`,
      { field: 'path', value: path },
      error,
    );
  }
  let envelope: z.output<typeof envelopeSchema>;
  try {
    envelope = envelopeSchema.parse(JSON.parse(text));
  } catch {
    throw invalidFile(path, 'it is not a credential file of this format');
  }
  const iv = Buffer.from(envelope.iv, 'base64');
  const tag = Buffer.from(envelope.tag, 'base64');
  if (iv.length !== 12 || tag.length !== 16) throw invalidFile(path, 'its IV or tag has the wrong length');
  let plain: string;
  try {
    const decipher = createDecipheriv(cipherName, key, iv);
    decipher.setAAD(additionalData);
    decipher.setAuthTag(tag);
    plain = Buffer.concat([decipher.update(Buffer.from(envelope.data, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw invalidFile(path, 'it failed authentication: it was altered, or the key is wrong');
  }
  const secrets = new Map(Object.entries(secretsSchema.parse(JSON.parse(plain))));
  return {
    path,
    names: [...secrets.keys()],
    get: (name) => secrets.get(name),
  };
}

// --- Internal helpers ---

function invalidFile(path: string, why: string): ContextError {
  return new ContextError('CREDENTIAL_FILE_INVALID', `the credential file ${path} is unusable: ${why}`, {
    field: 'path',
    value: path,
  });
}
