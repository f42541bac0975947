import type { ReadResourceResult } from '@modelcontextprotocol/client';
import { hashContents } from '../convert/hash-contents.js';
import { textBytesOf } from '../convert/text-bytes.js';

/**
 * sha256 of a read (`hashContents`: the bytes as sent) and the bytes it holds in memory (text
 * as UTF-8, blobs as their base64 text).
 *
 * Read contents carry no `annotations` (MCP spec: they are on listed resources, and the SDK
 * drops them from read results), so `lastModified` and `priority` are not known here.
 */
export function measureContents(result: ReadResourceResult): {
  result: ReadResourceResult;
  sha256: string;
  bytes: number;
} {
  let bytes = 0;
  for (const item of result.contents) {
    bytes +=
      'text' in item && typeof item.text === 'string'
        ? textBytesOf(item)
        : Buffer.byteLength(String((item as { blob?: string }).blob ?? ''));
  }
  return { result, sha256: hashContents(result.contents), bytes };
}
