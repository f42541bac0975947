import { createHash } from 'node:crypto';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import { ContextError } from '../errors.js';
import type { OmittedContent } from '../types.js';
import { isTextualMediaType } from './is-textual-media-type.js';
import { parseMediaType } from './media-type.js';

/** A read turned into what the model can be shown as text. */
export interface ConvertedResource {
  /** Media type of the first content item (what the frame names). */
  readonly mimeType: string;
  /** Text to frame: every textual item, and a notice line for each item that is not. */
  readonly body: string;
  /** True when at least one item was injectable text. */
  readonly textual: boolean;
  readonly bytes: number;
  /** sha256 (hex) over every content item as the server sent it. */
  readonly sha256: string;
  readonly omittedContents: OmittedContent[];
}

type ContentItem = ReadResourceResult['contents'][number];

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Converts every content item of a read. Text-like media types become text; anything else is
 * named in a visible notice and reported in `omittedContents`, never decoded into garbage.
 */
export function convertContents(contents: readonly ContentItem[]): ConvertedResource {
  const hash = createHash('sha256');
  const sections: string[] = [];
  const omittedContents: OmittedContent[] = [];
  let bytes = 0;
  let textual = false;
  for (const item of contents) {
    const mimeType = item.mimeType ?? 'application/octet-stream';
    const converted = convertItem(item, mimeType);
    hash.update(converted.raw);
    bytes += converted.bytes;
    if (converted.text !== undefined) {
      textual = true;
      sections.push(
        contents.length > 1 ? `--- ${item.uri} (${mimeType}) ---\n${converted.text}` : converted.text,
      );
    } else {
      const omitted = { uri: item.uri, mimeType, bytes: converted.bytes, reason: converted.reason };
      omittedContents.push(omitted);
      sections.push(
        `[content not shown: ${item.uri} is ${mimeType}, ${converted.bytes} bytes; ${converted.reason}]`,
      );
    }
  }
  return {
    mimeType: contents[0]?.mimeType ?? 'application/octet-stream',
    body: sections.join('\n'),
    textual,
    bytes,
    sha256: hash.digest('hex'),
    omittedContents,
  };
}

// --- Internal helpers ---

interface ItemResult {
  readonly raw: string | Uint8Array;
  readonly bytes: number;
  readonly text?: string;
  readonly reason: string;
}

function convertItem(item: ContentItem, mimeType: string): ItemResult {
  const mediaType = parseMediaType(mimeType);
  // A text item without a media type is text by the protocol's own word.
  const textual = item.mimeType === undefined || (mediaType !== undefined && isTextualMediaType(mediaType));
  if ('text' in item && typeof item.text === 'string') {
    const bytes = Buffer.byteLength(item.text);
    if (textual) return { raw: item.text, bytes, text: item.text, reason: '' };
    return { raw: item.text, bytes, reason: 'its media type is not text' };
  }
  const blob = 'blob' in item && typeof item.blob === 'string' ? item.blob : '';
  if (blob.length % 4 !== 0 || !base64Pattern.test(blob)) {
    throw new ContextError('UNSUPPORTED_CONTENT', `${item.uri}: the blob is not valid base64`, {
      value: item.uri,
    });
  }
  const data = Buffer.from(blob, 'base64');
  if (!textual || item.mimeType === undefined) {
    return { raw: data, bytes: data.length, reason: 'binary content is not converted to text' };
  }
  try {
    return { raw: data, bytes: data.length, text: strictUtf8.decode(data), reason: '' };
  } catch {
    return {
      raw: data,
      bytes: data.length,
      reason: `the blob is not valid UTF-8 although labelled ${mimeType}`,
    };
  }
}
