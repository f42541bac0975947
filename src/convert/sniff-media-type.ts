const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * For a blob without a media type: valid UTF-8 without NUL bytes is text, anything else binary.
 * Returns the decoded text for text, so it is decoded once.
 */
export function sniffMediaType(data: Uint8Array): { mimeType: string; text?: string } {
  if (data.includes(0)) return { mimeType: 'application/octet-stream' };
  try {
    return { mimeType: 'text/plain', text: strictUtf8.decode(data) };
  } catch {
    return { mimeType: 'application/octet-stream' };
  }
}
