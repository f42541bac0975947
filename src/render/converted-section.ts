import type { MediaPart } from '../types.js';
import type { EscapedText } from './escaped-text.js';

/**
 * One content item after conversion, as rendering takes it: text, a media item that becomes a
 * part or a placeholder per turn, or an item that cannot be shown (said so in the frame).
 */
export type ConvertedSection =
  | {
      readonly kind: 'text';
      readonly uri: string;
      readonly mimeType: string;
      /** Bytes as read (the text may be reformatted, e.g. compacted JSON). */
      readonly bytes: number;
      readonly text: string;
      readonly pinnedLines?: number;
      /**
       * Set once the text is escaped for framing (prepareAttachment): `text` is then its whole
       * escaped text, computed when first read, and this gives prefixes of it without escaping
       * the rest (see escaped-text.ts).
       */
      readonly escaped?: EscapedText;
    }
  | {
      readonly kind: 'media';
      readonly uri: string;
      readonly mimeType: string;
      readonly mediaKind: MediaPart['kind'];
      readonly bytes: number;
      /** base64, as MCP and every message format carry it. */
      readonly data: string;
    }
  | {
      readonly kind: 'omitted';
      readonly uri: string;
      readonly mimeType: string;
      readonly bytes: number;
      readonly reason: string;
    };
