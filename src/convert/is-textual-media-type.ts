import type { MediaType } from './media-type.js';

// Media types outside text/* whose content is text a model can read.
const textualApplicationTypes = new Set([
  'application/json',
  'application/yaml',
  'application/x-yaml',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/typescript',
  'application/x-sh',
  'application/sql',
  'application/graphql',
  'application/toml',
  'application/x-toml',
  'application/x-ndjson',
]);

const textualSuffixes = new Set(['json', 'xml', 'yaml']);

/** Exact essence, then the `text/*` family, then structured suffixes (`+json`, `+xml`). */
export function isTextualMediaType(mediaType: MediaType): boolean {
  if (textualApplicationTypes.has(mediaType.essence)) return true;
  if (mediaType.type === 'text') return true;
  return mediaType.suffix !== undefined && textualSuffixes.has(mediaType.suffix);
}
