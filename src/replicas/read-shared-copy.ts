import { specTypeSchemas } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { measureContents } from '../cache/measure-contents.js';
import type { SharedContent } from '../cache/shared-tier.js';

/** What a copy's envelope must hold; its `result` must pass the MCP schema the SDK checks reads with. */
const sharedCopySchema = z.object({
  result: z.unknown(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
  fetchedAt: z.number().finite(),
});

export type SharedCopy =
  | { readonly kind: 'copy'; readonly content: SharedContent }
  /** Not JSON, not a copy's shape, or a result no server could have sent. */
  | { readonly kind: 'malformed' }
  /** Well formed, but its contents are not what its sha256 (or byte count) says. */
  | { readonly kind: 'mismatched' };

/**
 * A shared copy's body as another replica stored it, checked as untrusted input: anyone who can
 * write to Redis can put anything at a copy's key, and the copy is served to a model as a
 * server's answer. Only a body that parses, passes the MCP read-result schema and hashes to its
 * recorded sha256 is a copy. Never throws.
 */
export function readSharedCopy(body: string): SharedCopy {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { kind: 'malformed' };
  }
  const envelope = sharedCopySchema.safeParse(value);
  if (!envelope.success) return { kind: 'malformed' };
  const result = specTypeSchemas.ReadResourceResult['~standard'].validate(envelope.data.result);
  if (result.issues !== undefined) return { kind: 'malformed' };
  const measured = measureContents(result.value);
  if (measured.sha256 !== envelope.data.sha256 || measured.bytes !== envelope.data.bytes)
    return { kind: 'mismatched' };
  return {
    kind: 'copy',
    content: { ...measured, fetchedAt: envelope.data.fetchedAt },
  };
}
