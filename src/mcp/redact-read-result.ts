import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { redactedText, type SecretRedactor } from '../credentials/secret-redactor.js';

/** A read with every credential the server echoed removed; `redactions` counts what went. */
export type RedactedReadResult = ReadResourceResult & { readonly redactions?: number };

/**
 * Removes the server's credentials from a read before anything else sees it (cap, cache,
 * converters, the model): a server that echoes the token it was given — in text, in a blob's
 * bytes, in a content URI or `_meta` — does not get it into the context. Runs before the byte cap,
 * so a cut can never leave half a secret. The same object comes back when there was nothing to
 * remove.
 */
export function redactReadResult(result: ReadResourceResult, redactor: SecretRedactor): RedactedReadResult {
  if (redactor.size === 0) return result;
  let redactions = 0;
  const contents = result.contents.map((item) => {
    if (!('blob' in item) || typeof item.blob !== 'string') {
      const redacted = redactor.redactValue(item);
      redactions += redacted.count;
      return redacted.value;
    }
    const { blob, ...rest } = item;
    const fields = redactor.redactValue(rest);
    const bytes = redactBlob(blob, redactor.substringSecrets());
    redactions += fields.count + bytes.count;
    return fields.count + bytes.count === 0 ? item : { ...fields.value, blob: bytes.blob };
  });
  const { contents: _contents, ...others } = result;
  const rest = redactor.redactValue(others);
  redactions += rest.count;
  if (redactions === 0) return result;
  return { ...rest.value, contents, redactions } as RedactedReadResult;
}

// --- Internal helpers ---

/** Secrets in a blob's decoded bytes (a text file sent as a blob, an image comment). */
function redactBlob(blob: string, secrets: readonly string[]): { blob: string; count: number } {
  if (secrets.length === 0) return { blob, count: 0 };
  // latin1 maps each byte to one code unit: a byte-exact search with string methods.
  let bytes = Buffer.from(blob, 'base64').toString('latin1');
  let count = 0;
  for (const secret of secrets) {
    const needle = Buffer.from(secret, 'utf8').toString('latin1');
    const parts = bytes.split(needle);
    if (parts.length === 1) continue;
    count += parts.length - 1;
    bytes = parts.join(redactedText);
  }
  return count === 0 ? { blob, count } : { blob: Buffer.from(bytes, 'latin1').toString('base64'), count };
}
