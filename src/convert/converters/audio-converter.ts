import type { Converter } from '../converter.js';

/** Audio as a part for models and message formats that take it (`turn.model.audio`); otherwise a placeholder. */
export const audioConverter: Converter = {
  name: 'audio',
  mediaTypes: ['audio/*'],
  extensions: ['wav', 'mp3', 'ogg', 'flac', 'm4a'],
  input: 'binary',
  convert: ({ data = new Uint8Array(0), mediaType, mimeType }) => ({
    kind: 'media',
    mediaKind: 'audio',
    mimeType: mediaType?.essence ?? mimeType,
    data,
  }),
};
