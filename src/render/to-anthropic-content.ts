import type { ContextBlock, MediaPart } from '../types.js';
import { unsupportedPartText } from './media-parts-of.js';

type CacheControl = { readonly type: 'ephemeral' };

/** The image media types the Messages API takes (its `ImageBlockParam.source.media_type`). */
export type AnthropicImageMediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
const imageMediaTypes: ReadonlySet<string> = new Set<AnthropicImageMediaType>([
  'image/jpeg',
  'image/png',
  'image/gif',
  'image/webp',
]);

/** Content blocks of the Anthropic Messages API that context can produce. */
export type AnthropicContentBlock =
  | { readonly type: 'text'; readonly text: string; readonly cache_control?: CacheControl }
  | {
      readonly type: 'image';
      readonly source: {
        readonly type: 'base64';
        readonly media_type: AnthropicImageMediaType;
        readonly data: string;
      };
      readonly cache_control?: CacheControl;
    }
  | {
      readonly type: 'document';
      readonly source: {
        readonly type: 'base64';
        readonly media_type: 'application/pdf';
        readonly data: string;
      };
      readonly cache_control?: CacheControl;
    };

export interface ToAnthropicContentOptions {
  /**
   * Mark the end of the stable prefix (the preamble, pipeline and conversation pins: what an
   * unchanged set of pins renders byte-identically every turn) with `cache_control`, so the
   * provider can cache it. Default false.
   */
  readonly cacheControl?: boolean;
}

/**
 * Renders context blocks as Anthropic Messages content blocks (for a user message or `system`):
 * one text block per context block, images as base64 `image` blocks and PDFs as `document`
 * blocks right after the block naming them. Audio, which the format lacks, becomes a visible
 * placeholder. Pure: the blocks are not changed.
 */
export function toAnthropicContent(
  blocks: readonly ContextBlock[],
  options: ToAnthropicContentOptions = {},
): AnthropicContentBlock[] {
  const content: AnthropicContentBlock[] = [];
  let stableEnd = -1;
  let stableResources = 0;
  // Rendering puts the message scope last, so the stable prefix is everything before it.
  let inPrefix = true;
  for (const block of blocks) {
    if (block.kind === 'resource' && block.provenance.scope === 'message') inPrefix = false;
    content.push({ type: 'text', text: block.text });
    if (block.kind === 'resource') for (const part of block.parts ?? []) content.push(toBlock(part));
    if (!inPrefix) continue;
    stableEnd = content.length - 1;
    if (block.kind === 'resource') stableResources++;
  }
  if (options.cacheControl && stableResources > 0) {
    content[stableEnd] = {
      ...(content[stableEnd] as AnthropicContentBlock),
      cache_control: { type: 'ephemeral' },
    };
  }
  return content;
}

// --- Internal helpers ---

function toBlock(part: MediaPart): AnthropicContentBlock {
  // Any other image type (SVG, TIFF …) would be refused by the API: it becomes a placeholder.
  if (part.kind === 'image' && imageMediaTypes.has(part.mimeType)) {
    const mediaType = part.mimeType as AnthropicImageMediaType;
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: part.data } };
  }
  if (part.kind === 'document') {
    return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: part.data } };
  }
  return { type: 'text', text: unsupportedPartText(part, 'the Anthropic Messages API') };
}
