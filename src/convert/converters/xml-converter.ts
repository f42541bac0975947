import type { Converter } from '../converter.js';

/**
 * XML and HTML go in as text. Markup is not stripped: structure often carries meaning, and the
 * frame's escaping already keeps content from closing its frame.
 */
export const xmlConverter: Converter = {
  name: 'xml',
  mediaTypes: ['application/xml', 'text/xml', 'text/html', 'application/xhtml+xml', '+xml'],
  extensions: ['xml', 'html', 'htm', 'xhtml', 'svg'],
  input: 'text',
  convert: ({ text = '' }) => ({ kind: 'text', text }),
};
