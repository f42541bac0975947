import { createHash } from 'node:crypto';
import type { ReadResourceResult } from '@modelcontextprotocol/client';

/**
 * The one name of a read's content: sha256 (hex) over every item's bytes as sent, in order —
 * text as UTF-8, a blob as the bytes its base64 encodes (not the base64 text). The content
 * cache, the conversion, frames and the trace all use this hash, so one resource has one
 * sha256 wherever it shows, and a single-item read's hash is that of the file it carries.
 */
export function hashContents(contents: readonly ReadResourceResult['contents'][number][]): string {
  const hash = createHash('sha256');
  for (const item of contents) {
    if ('text' in item && typeof item.text === 'string') hash.update(item.text, 'utf8');
    else hash.update(String((item as { blob?: unknown }).blob ?? ''), 'base64');
  }
  return hash.digest('hex');
}
