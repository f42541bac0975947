import { ContextError } from '../errors.js';
import type { Converter } from './converter.js';
import { audioConverter } from './converters/audio-converter.js';
import { binaryConverter } from './converters/binary-converter.js';
import { csvConverter } from './converters/csv-converter.js';
import { imageConverter } from './converters/image-converter.js';
import { jsonConverter } from './converters/json-converter.js';
import { markdownConverter } from './converters/markdown-converter.js';
import { pdfConverter } from './converters/pdf-converter.js';
import { plainTextConverter } from './converters/plain-text-converter.js';
import { extensionOf, sourceCodeConverter } from './converters/source-code-converter.js';
import { xmlConverter } from './converters/xml-converter.js';
import { yamlConverter } from './converters/yaml-converter.js';
import type { MediaType } from './media-type.js';

/** The converters every registry starts with, one per media-type family. */
export const defaultConverters: readonly Converter[] = [
  plainTextConverter,
  markdownConverter,
  sourceCodeConverter,
  jsonConverter,
  yamlConverter,
  csvConverter,
  xmlConverter,
  imageConverter,
  audioConverter,
  pdfConverter,
];

// Media types that say little about the content: the URI's extension is a better guide.
const genericEssences = new Set(['text/plain', 'application/octet-stream']);

/**
 * Picks the converter for a content item by its parsed media type: the exact essence, then the
 * `type/*` family, then the structured suffix (`+json`, `+xml`), then the binary fallback. When
 * the media type is missing or generic, the URI's extension is consulted first. Never substring
 * matching. Later registrations win.
 */
export class ConverterRegistry {
  readonly #exact = new Map<string, Converter>();
  readonly #families = new Map<string, Converter>();
  readonly #suffixes = new Map<string, Converter>();
  readonly #extensions = new Map<string, Converter>();
  readonly #fallback: Converter;
  #revision = 0;

  /** Changes whenever a converter is registered: derived caches key on it. */
  get revision(): number {
    return this.#revision;
  }

  constructor(converters: readonly Converter[] = defaultConverters, fallback: Converter = binaryConverter) {
    this.#fallback = fallback;
    this.register(fallback);
    for (const converter of converters) this.register(converter);
  }

  register(converter: Converter): this {
    if (!converter || typeof converter.convert !== 'function' || !Array.isArray(converter.mediaTypes)) {
      throw new ContextError('INVALID_OPTION', 'a converter needs name, mediaTypes, input and convert()', {
        field: 'converter',
        value: converter?.name,
      });
    }
    for (const pattern of converter.mediaTypes) {
      const key = pattern.toLowerCase();
      if (key.startsWith('+')) this.#suffixes.set(key.slice(1), converter);
      else if (key.endsWith('/*')) this.#families.set(key.slice(0, -2), converter);
      else if (/^[^/]+\/[^/]+$/.test(key)) this.#exact.set(key, converter);
      else {
        throw new ContextError('INVALID_OPTION', `"${pattern}" is not a media type, family or suffix`, {
          field: `${converter.name}.mediaTypes`,
          value: pattern,
        });
      }
    }
    for (const extension of converter.extensions ?? [])
      this.#extensions.set(extension.toLowerCase(), converter);
    this.#revision++;
    return this;
  }

  /** The converter for a content item of this media type at this URI. */
  find(mediaType: MediaType | undefined, uri: string): Converter {
    if (!mediaType || genericEssences.has(mediaType.essence)) {
      const byExtension = this.#extensions.get(extensionOf(uri));
      // A generic type never turns text into binary or binary into text by extension alone.
      const kind = mediaType?.essence === 'application/octet-stream' ? 'binary' : 'text';
      if (byExtension && (mediaType === undefined || byExtension.input === kind)) return byExtension;
    }
    if (!mediaType) return this.#fallback;
    return (
      this.#exact.get(mediaType.essence) ??
      this.#families.get(mediaType.type) ??
      (mediaType.suffix !== undefined ? this.#suffixes.get(mediaType.suffix) : undefined) ??
      this.#fallback
    );
  }
}

/** A registry with the default converters and, after them (so they win), `converters`. */
export function createConverterRegistry(converters: readonly Converter[] = []): ConverterRegistry {
  return new ConverterRegistry([...defaultConverters, ...converters]);
}
