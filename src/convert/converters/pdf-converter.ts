import type { Converter } from '../converter.js';

/** PDF as a document part for models and message formats that take it (`turn.model.pdf`); otherwise a placeholder. */
export const pdfConverter: Converter = {
  name: 'pdf',
  mediaTypes: ['application/pdf'],
  extensions: ['pdf'],
  input: 'binary',
  convert: ({ data = new Uint8Array(0) }) => ({
    kind: 'media',
    mediaKind: 'document',
    mimeType: 'application/pdf',
    data,
  }),
};
