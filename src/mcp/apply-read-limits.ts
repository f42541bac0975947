import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { mimeTypeAllowed } from '../convert/mime-type-pattern.js';
import { ContextError } from '../errors.js';
import type { AccessLimits } from './access-limits.js';
import { type CappedReadResult, capReadResult, type TruncatedContent } from './cap-read-result.js';

/**
 * Applies a binding's limits to a read that has already come back: every content item's
 * media type must be admitted (else POLICY_DENIED naming it: the whole read is refused, no
 * item is dropped in silence), and content beyond `maxBytes` is cut with `truncation`
 * saying so. Runs after the read because the content cache shares one read across
 * pipelines with different limits.
 */
export function applyReadLimits(
  result: ReadResourceResult | CappedReadResult,
  limits: AccessLimits,
  where: { readonly server: string; readonly uri: string },
): CappedReadResult {
  // Indexed loops, no callback: every warm turn checks every attachment's read again.
  for (let list = 0; list < limits.mimeTypes.length; list++) {
    const refused = refusedItem(result.contents, limits.mimeTypes[list] ?? []);
    if (refused) {
      throw new ContextError(
        'POLICY_DENIED',
        `${where.uri} on server "${where.server}" returned media type ${refused.mimeType ?? '(none)'}, which the binding does not allow`,
        { server: where.server, field: 'mimeType', value: refused.mimeType ?? null },
      );
    }
  }
  if (limits.maxBytes === undefined) return result;
  const capped = capReadResult(result, limits.maxBytes);
  const earlier = (result as CappedReadResult).truncation;
  if (capped === result || !earlier || !capped.truncation) return capped;
  // Cut twice (the registry's cap, then this one): report sizes as the server sent them.
  const byIndex = new Map<number, TruncatedContent>(earlier.items.map((item) => [item.index, item]));
  for (const item of capped.truncation.items) {
    byIndex.set(item.index, {
      ...item,
      originalBytes: byIndex.get(item.index)?.originalBytes ?? item.originalBytes,
    });
  }
  return {
    ...capped,
    truncation: {
      ...capped.truncation,
      originalBytes: earlier.originalBytes,
      items: [...byIndex.values()].sort((a, b) => a.index - b.index),
    },
  };
}

// --- Internal helpers ---

function refusedItem(
  contents: ReadResourceResult['contents'],
  allowlist: readonly string[],
): ReadResourceResult['contents'][number] | undefined {
  for (let index = 0; index < contents.length; index++) {
    const item = contents[index];
    if (item && !mimeTypeAllowed(item.mimeType, allowlist)) return item;
  }
  return undefined;
}
