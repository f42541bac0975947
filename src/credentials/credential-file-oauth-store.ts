import { ContextError } from '../errors.js';
import {
  type CredentialFileOptions,
  openCredentialFile,
  writeCredentialFile,
} from './encrypted-credential-file.js';
import { allKinds } from './memory-oauth-store.js';
import type { OAuthRecordKind, OAuthStore, OAuthSubject } from './oauth-authorizer.js';
import { oauthRecordName } from './oauth-record-name.js';

/**
 * An `OAuthStore` in the encrypted credential file (AES-256-GCM, 0600, atomic replace): tokens
 * and client registrations sit beside the other secrets as `oauth/<server>/<principal>/<kind>`.
 * Writes are serialized; each re-reads the file, so secrets written by others are kept. A file
 * that does not exist yet is created on the first write.
 */
export function credentialFileOAuthStore(path: string, options: CredentialFileOptions = {}): OAuthStore {
  let queue: Promise<unknown> = Promise.resolve();
  const serialized = <T>(work: () => Promise<T>): Promise<T> => {
    const next = queue.then(work, work);
    queue = next.catch(() => undefined);
    return next;
  };
  const readAll = async (): Promise<Record<string, string>> => {
    try {
      const file = await openCredentialFile(path, options);
      return Object.fromEntries(file.names.map((name) => [name, file.get(name) ?? '']));
    } catch (error) {
      if (ContextError.isInstance(error) && isMissingFile(error)) return {};
      throw error;
    }
  };
  return {
    get: (subject: OAuthSubject, kind: OAuthRecordKind) =>
      serialized(async () => {
        const text = (await readAll())[oauthRecordName(subject, kind)];
        return text === undefined ? undefined : (JSON.parse(text) as unknown);
      }),
    set: (subject: OAuthSubject, kind: OAuthRecordKind, value: unknown) =>
      serialized(async () => {
        const secrets = await readAll();
        secrets[oauthRecordName(subject, kind)] = JSON.stringify(value);
        await writeCredentialFile(path, secrets, options);
      }),
    delete: (subject: OAuthSubject, kinds: readonly OAuthRecordKind[] = allKinds) =>
      serialized(async () => {
        const secrets = await readAll();
        for (const kind of kinds) delete secrets[oauthRecordName(subject, kind)];
        await writeCredentialFile(path, secrets, options);
      }),
  };
}

// --- Internal helpers ---

function isMissingFile(error: ContextError): boolean {
  return (error.cause as { code?: unknown } | undefined)?.code === 'ENOENT';
}
