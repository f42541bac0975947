import type { Converter } from '../converter.js';

/** Markdown goes in as written: models read it natively. */
export const markdownConverter: Converter = {
  name: 'markdown',
  mediaTypes: ['text/markdown', 'text/x-markdown'],
  extensions: ['md', 'markdown', 'mdx'],
  input: 'text',
  convert: ({ text = '' }) => ({ kind: 'text', text }),
};
