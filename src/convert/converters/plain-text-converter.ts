import type { Converter } from '../converter.js';

/** Any `text/*` without a more specific converter, and text formats outside `text/*`. */
export const plainTextConverter: Converter = {
  name: 'plain-text',
  mediaTypes: [
    'text/plain',
    'text/*',
    'application/x-ndjson',
    'application/toml',
    'application/x-toml',
    'application/x-www-form-urlencoded',
  ],
  extensions: ['txt', 'log', 'text', 'toml', 'ini', 'cfg', 'env', 'ndjson'],
  input: 'text',
  convert: ({ text = '' }) => ({ kind: 'text', text }),
};
