import type { Converter } from '../converter.js';

/** The fallback: binary content is reported with its type and size, never decoded as text. */
export const binaryConverter: Converter = {
  name: 'binary',
  mediaTypes: ['application/octet-stream'],
  input: 'binary',
  convert: () => ({ kind: 'omitted', reason: 'binary content is not converted to text' }),
};
