import { createHash } from 'node:crypto';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * sha256 and byte size of a read, over every content item as the server sent it (text as
 * UTF-8, blobs as their base64 text).
 *
 * Read contents carry no `annotations` (MCP spec: they are on listed resources, and the SDK
 * drops them from read results), so `lastModified` and `priority` are not known here.
 */
export function measureContents(result: ReadResourceResult): {
  result: ReadResourceResult;
  sha256: string;
  bytes: number;
} {
  const hash = createHash('sha256');
  let bytes = 0;
  for (const item of result.contents) {
    const raw =
      'text' in item && typeof item.text === 'string'
        ? item.text
        : String((item as { blob?: string }).blob ?? '');
    hash.update(raw);
    bytes += Buffer.byteLength(raw);
  }
  return { result, sha256: hash.digest('hex'), bytes };
}
