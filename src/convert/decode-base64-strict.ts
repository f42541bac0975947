import { ContextError } from '../errors.js';

const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes a blob; anything but canonical base64 is an error, never half-decoded content. */
export function decodeBase64Strict(blob: string, uri: string): Uint8Array {
  if (blob.length % 4 !== 0 || !base64Pattern.test(blob)) {
    throw new ContextError('UNSUPPORTED_CONTENT', `${uri}: the blob is not valid base64`, { value: uri });
  }
  return Buffer.from(blob, 'base64');
}
