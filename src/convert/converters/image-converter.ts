import type { Converter } from '../converter.js';

/**
 * The image types vision models accept (OpenAI, Anthropic and Gemini all take these four).
 * Whether the part reaches the model is the turn's decision (`turn.model.images`); without it
 * the model sees a placeholder naming the type and size.
 */
export const imageConverter: Converter = {
  name: 'image',
  mediaTypes: ['image/png', 'image/jpeg', 'image/gif', 'image/webp'],
  extensions: ['png', 'jpg', 'jpeg', 'gif', 'webp'],
  input: 'binary',
  convert: ({ data = new Uint8Array(0), mediaType, mimeType }) => ({
    kind: 'media',
    mediaKind: 'image',
    mimeType: mediaType?.essence ?? mimeType,
    data,
  }),
};
