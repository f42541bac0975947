import type { ReadResourceResult } from '@modelcontextprotocol/client';
import type { ConvertedSection } from '../render/converted-section.js';
import type { OmittedContent } from '../types.js';
import type { Converter } from './converter.js';
import { ConverterRegistry } from './converter-registry.js';
import { decodeBase64Strict } from './decode-base64-strict.js';
import { hashContents } from './hash-contents.js';
import { parseMediaType } from './media-type.js';
import { sniffMediaType } from './sniff-media-type.js';
import { textBytesOf } from './text-bytes.js';
import { isUiResource, uiResourceReason } from './ui-resource.js';

export type { ConvertedSection } from '../render/converted-section.js';

/** A read turned into sections the model can be shown. Independent of the turn: cacheable. */
export interface ConvertedResource {
  /** Media type of the first content item (what the frame names); sniffed when the server sent none. */
  readonly mimeType: string;
  readonly sections: readonly ConvertedSection[];
  /** True when at least one item is text or a media part. */
  readonly textual: boolean;
  readonly bytes: number;
  /** sha256 (hex) of the bytes as sent (`hashContents`). */
  readonly sha256: string;
  /** Items that cannot be shown at all (binary, invalid UTF-8). */
  readonly omittedContents: OmittedContent[];
  /** Facts worth a line in the trace (e.g. invalid JSON shown as text). */
  readonly notes: string[];
}

type ContentItem = ReadResourceResult['contents'][number];

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const defaultRegistry = new ConverterRegistry();

/**
 * Converts every content item of a read with the converter its media type selects. An invalid
 * base64 blob throws (UNSUPPORTED_CONTENT): the attachment becomes an error, not content.
 * `sha256`, when the caller already knows it (the content cache hashed the same contents with
 * `hashContents`), is used as is rather than hashed again. `requestedUri` is the URI the read
 * asked for: when it names a UI resource, every item is one, whatever URI and media type the
 * item itself carries (a `ui://` read answering `https://…` items of `text/html` is still an app).
 */
export function convertContents(
  contents: readonly ContentItem[],
  registry: ConverterRegistry = defaultRegistry,
  sha256?: string,
  requestedUri?: string,
): ConvertedResource {
  const sections: ConvertedSection[] = [];
  const omittedContents: OmittedContent[] = [];
  const notes: string[] = [];
  let bytes = 0;
  let firstMimeType: string | undefined;
  const requestedUi = requestedUri !== undefined && isUiResource(requestedUri, undefined);
  for (const item of contents) {
    const section = convertItem(item, registry, notes, requestedUi);
    firstMimeType ??= section.mimeType;
    bytes += section.bytes;
    if (section.kind === 'omitted') {
      omittedContents.push({
        uri: section.uri,
        mimeType: section.mimeType,
        bytes: section.bytes,
        reason: section.reason,
      });
    }
    sections.push(section);
  }
  return {
    mimeType: firstMimeType ?? 'application/octet-stream',
    sections,
    textual: sections.some((section) => section.kind !== 'omitted'),
    bytes,
    sha256: sha256 ?? hashContents(contents),
    omittedContents,
    notes,
  };
}

// --- Internal helpers ---

function convertItem(
  item: ContentItem,
  registry: ConverterRegistry,
  notes: string[],
  requestedUi: boolean,
): ConvertedSection {
  const isText = 'text' in item && typeof item.text === 'string';
  const text = isText ? (item.text as string) : undefined;
  const data = isText ? undefined : decodeBase64Strict(blobOf(item), item.uri);
  let mimeType = item.mimeType;
  let sniffedText: string | undefined;
  if (mimeType === undefined) {
    // A text item without a media type is text by the protocol's own word; a blob is sniffed.
    if (data) ({ mimeType, text: sniffedText } = sniffMediaType(data));
    else mimeType = 'text/plain';
  }
  const mediaType = parseMediaType(mimeType);
  const converter = registry.find(mediaType, item.uri);
  const byteCount = text !== undefined ? textBytesOf(item as { readonly text: string }) : (data?.length ?? 0);
  const omitted = (reason: string): ConvertedSection => ({
    kind: 'omitted',
    uri: item.uri,
    mimeType: mimeType as string,
    bytes: byteCount,
    reason,
  });

  // Before any converter, the host's own included: no registration can turn an app into context.
  // The rule holds for the URI asked for and for each item's own URI and media type.
  if (requestedUi || isUiResource(item.uri, mimeType)) return omitted(uiResourceReason);
  let input: { text?: string; data?: Uint8Array };
  if (converter.input === 'text') {
    const decoded = text ?? sniffedText ?? decodeUtf8(data as Uint8Array);
    if (decoded === undefined) return omitted(`the blob is not valid UTF-8 although labelled ${mimeType}`);
    input = { text: decoded };
  } else {
    if (data === undefined) return omitted(`a text item cannot carry ${mimeType} data`);
    input = { data };
  }
  const output = runConverter(converter, {
    uri: item.uri,
    mimeType,
    ...(mediaType && { mediaType }),
    ...input,
  });
  switch (output.kind) {
    case 'text':
      for (const note of output.notes ?? []) notes.push(`${item.uri}: ${note}`);
      return {
        kind: 'text',
        uri: item.uri,
        mimeType,
        bytes: byteCount,
        text: output.text,
        ...(output.pinnedLines !== undefined && { pinnedLines: output.pinnedLines }),
      };
    case 'media':
      return {
        kind: 'media',
        uri: item.uri,
        mimeType: output.mimeType,
        mediaKind: output.mediaKind,
        bytes: output.data.length,
        // The blob as sent when the converter passed its bytes through (no re-encoding); a
        // converter that made new bytes (a transcoder) ships those.
        data: output.data === data ? blobOf(item) : Buffer.from(output.data).toString('base64'),
      };
    default:
      return omitted(output.reason);
  }
}

function runConverter(converter: Converter, input: Parameters<Converter['convert']>[0]) {
  try {
    return converter.convert(input);
  } catch (error) {
    // A user converter that throws must not sink the turn, nor hide the item.
    return { kind: 'omitted' as const, reason: `converter "${converter.name}" failed: ${String(error)}` };
  }
}

function blobOf(item: ContentItem): string {
  return 'blob' in item && typeof item.blob === 'string' ? item.blob : '';
}

function decodeUtf8(data: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(data);
  } catch {
    return undefined;
  }
}
