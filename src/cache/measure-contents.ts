import { createHash } from 'node:crypto';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * sha256 and byte size of a read, over every content item as the server sent it (text as
 * UTF-8, blobs as their base64 text), plus the first item's `annotations.lastModified`.
 */
export function measureContents(result: ReadResourceResult): {
  result: ReadResourceResult;
  sha256: string;
  bytes: number;
  lastModified?: string;
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
  // Annotations on contents are not in every SDK type, but servers send them (MCP spec 2025-06-18).
  const first = result.contents[0] as { annotations?: { lastModified?: unknown } } | undefined;
  const lastModified = first?.annotations?.lastModified;
  return {
    result,
    sha256: hash.digest('hex'),
    bytes,
    ...(typeof lastModified === 'string' && { lastModified }),
  };
}
