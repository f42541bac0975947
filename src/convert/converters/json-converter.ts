import { ContextError } from '../../errors.js';
import type { Converter } from '../converter.js';

export interface JsonConverterOptions {
  /** `compact` (default) re-serialises without whitespace; `pretty` indents by two; `preserve` keeps it as sent. */
  readonly format?: 'compact' | 'pretty' | 'preserve';
}

const formats = new Set(['compact', 'pretty', 'preserve']);

/** JSON and `+json` types. Invalid JSON is kept as text and flagged, never dropped or "repaired". */
export function createJsonConverter(options: JsonConverterOptions = {}): Converter {
  const format = options.format ?? 'compact';
  if (!formats.has(format)) {
    throw new ContextError(
      'INVALID_OPTION',
      `format must be compact, pretty or preserve (got ${String(format)})`,
      {
        field: 'format',
        value: format,
      },
    );
  }
  return {
    name: 'json',
    mediaTypes: ['application/json', 'text/json', '+json'],
    extensions: ['json', 'jsonc', 'json5'],
    input: 'text',
    convert: ({ text = '', mimeType }) => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return { kind: 'text', text, notes: [`labelled ${mimeType} but not valid JSON; shown as sent`] };
      }
      if (format === 'preserve') return { kind: 'text', text };
      return { kind: 'text', text: JSON.stringify(value, null, format === 'pretty' ? 2 : undefined) };
    },
  };
}

export const jsonConverter = createJsonConverter();
