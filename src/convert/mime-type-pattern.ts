import { parseMediaType } from './media-type.js';

/**
 * Whether a media type is admitted by an allowlist of patterns: `text/markdown` (exact
 * essence), `text/*` (a whole type), `+json` (a structured syntax suffix, RFC 6839) or `*`
 * / `*\/*` (anything). Compared by parsed essence, never by substring. A missing or
 * unparsable type is admitted only by `*`.
 */
export function mimeTypeAllowed(mimeType: string | undefined, patterns: readonly string[]): boolean {
  const parsed = parseMediaType(mimeType);
  return patterns.some((pattern) => {
    const normalized = pattern.trim().toLowerCase();
    if (normalized === '*' || normalized === '*/*') return true;
    if (parsed === undefined) return false;
    if (normalized.startsWith('+')) return parsed.suffix === normalized.slice(1);
    if (normalized.endsWith('/*')) return parsed.type === normalized.slice(0, -2);
    return parseMediaType(normalized)?.essence === parsed.essence;
  });
}
