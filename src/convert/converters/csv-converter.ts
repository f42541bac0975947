import type { Converter } from '../converter.js';

/** CSV and TSV as text; the header row is pinned, so it survives every cut. */
export const csvConverter: Converter = {
  name: 'csv',
  mediaTypes: ['text/csv', 'text/tab-separated-values', 'application/csv'],
  extensions: ['csv', 'tsv'],
  input: 'text',
  convert: ({ text = '' }) => ({ kind: 'text', text, ...(text.includes('\n') && { pinnedLines: 1 }) }),
};
