import type { ContextBlock, MediaPart } from '../types.js';

/** The file name a part goes by in message formats that want one: the URI's last segment. */
export function fileNameOf(part: MediaPart): string {
  const path = part.uri.replace(/[?#].*$/s, '');
  return path.slice(path.lastIndexOf('/') + 1) || part.kind;
}

/** A placeholder for a part a message format cannot carry, so its absence is visible. */
export function unsupportedPartText(part: MediaPart, format: string): string {
  return `[${part.kind} ${part.uri} (${part.mimeType}, ${part.bytes} bytes) not sent: ${format} does not accept it]`;
}

/** Every media part of the blocks, in block order. */
export function mediaPartsOf(blocks: readonly ContextBlock[]): MediaPart[] {
  return blocks.flatMap((block) => (block.kind === 'resource' ? (block.parts ?? []) : []));
}
