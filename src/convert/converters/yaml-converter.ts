import type { Converter } from '../converter.js';

/** YAML goes in as written: it is already the compact, readable form. */
export const yamlConverter: Converter = {
  name: 'yaml',
  mediaTypes: ['application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml', '+yaml'],
  extensions: ['yaml', 'yml'],
  input: 'text',
  convert: ({ text = '' }) => ({ kind: 'text', text }),
};
