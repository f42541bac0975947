import type { ReadResourceResult } from '@modelcontextprotocol/client';

const errorBodyPattern = /^Error: /;
// Real error bodies are one short sentence; a long text/plain document that happens to start
// with "Error: " is content, not a failure report.
const maxErrorBodyLength = 2048;

/**
 * The message of a read that reports a failure as content (GitNexus answers an unknown repo
 * with `{ mimeType: "text/plain", text: "Error: …" }` instead of a JSON-RPC error), or
 * undefined for a real read.
 */
export function detectErrorBody(result: ReadResourceResult): string | undefined {
  if (result.contents.length !== 1) return undefined;
  const [item] = result.contents;
  if (!item || !('text' in item) || typeof item.text !== 'string') return undefined;
  if (item.mimeType?.split(';')[0]?.trim().toLowerCase() !== 'text/plain') return undefined;
  if (item.text.length > maxErrorBodyLength || !errorBodyPattern.test(item.text)) return undefined;
  return item.text.replace(errorBodyPattern, '').trim();
}
