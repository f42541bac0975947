import type { MediaType } from './media-type.js';

/** One content item of a read, as a converter sees it. */
export interface ConverterInput {
  readonly uri: string;
  /** The media type as the server sent it, or as sniffed when it sent none. */
  readonly mimeType: string;
  readonly mediaType?: MediaType;
  /** The content as text: set for converters whose `input` is `text` (a blob is decoded as UTF-8 first). */
  readonly text?: string;
  /** The content as bytes: set for converters whose `input` is `binary`. */
  readonly data?: Uint8Array;
}

export type MediaKind = 'image' | 'audio' | 'document';

export type ConverterOutput =
  /** Text for the model; `pinnedLines` leading lines survive every cut (a CSV header). */
  | {
      readonly kind: 'text';
      readonly text: string;
      readonly pinnedLines?: number;
      /** Facts worth a line in the trace, e.g. "labelled application/json but not valid JSON". */
      readonly notes?: readonly string[];
    }
  /** A part the model may take natively (image, audio, PDF), if the model and message format accept it. */
  | {
      readonly kind: 'media';
      readonly mediaKind: MediaKind;
      readonly mimeType: string;
      readonly data: Uint8Array;
    }
  /** Nothing to show; `reason` says why, and the item is reported, never dropped. */
  | { readonly kind: 'omitted'; readonly reason: string };

/**
 * Turns one family of media types into context. Register your own with
 * `ConverterRegistry.register`; every converter runs the shared contract suite in tests.
 */
export interface Converter {
  /** For traces and errors, e.g. `json`. */
  readonly name: string;
  /** Exact essences (`text/csv`), families (`text/*`) or structured suffixes (`+json`). */
  readonly mediaTypes: readonly string[];
  /** URI extensions (no dot) it claims when the media type is missing or generic (`text/plain`). */
  readonly extensions?: readonly string[];
  /** `text`: gets the content as text; `binary`: gets the bytes. */
  readonly input: 'text' | 'binary';
  convert(input: ConverterInput): ConverterOutput;
}
