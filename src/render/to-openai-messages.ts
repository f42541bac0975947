import type { ContextBlock, MediaPart } from '../types.js';
import { fileNameOf, mediaPartsOf, unsupportedPartText } from './media-parts-of.js';

/** Content parts of the OpenAI Chat Completions API that context can produce. */
export type OpenAIContentPart =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'image_url';
      readonly image_url: { readonly url: string; readonly detail?: 'auto' | 'low' | 'high' };
    }
  | {
      readonly type: 'input_audio';
      readonly input_audio: { readonly data: string; readonly format: 'wav' | 'mp3' };
    }
  | { readonly type: 'file'; readonly file: { readonly filename: string; readonly file_data: string } };

export type OpenAIMessage =
  | { readonly role: 'system' | 'developer'; readonly content: string }
  | { readonly role: 'user'; readonly content: OpenAIContentPart[] };

export interface ToOpenAIMessagesOptions {
  /**
   * `user` (default): one user message with text and media parts. `system` / `developer`: the
   * text as one such message; media (which those roles cannot carry) follow in a user message.
   */
  readonly role?: 'user' | 'system' | 'developer';
  /** `detail` of image parts. */
  readonly imageDetail?: 'auto' | 'low' | 'high';
}

const audioFormats: Readonly<Record<string, 'wav' | 'mp3'>> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
};

/**
 * Renders context blocks as OpenAI Chat Completions messages: text parts, images as `image_url`
 * data URLs, wav/mp3 as `input_audio`, PDFs as `file` parts. Pure: the blocks are not changed.
 * The text parts joined are exactly `renderText(blocks)`, so the budget holds.
 */
export function toOpenAIMessages(
  blocks: readonly ContextBlock[],
  options: ToOpenAIMessagesOptions = {},
): OpenAIMessage[] {
  if (blocks.length === 0) return [];
  const role = options.role ?? 'user';
  if (role !== 'user') {
    const text = blocks.map((block) => block.text).join('');
    const media = mediaPartsOf(blocks);
    const messages: OpenAIMessage[] = [{ role, content: text }];
    if (media.length > 0)
      messages.push({ role: 'user', content: media.map((part) => toPart(part, options)) });
    return messages;
  }
  const content: OpenAIContentPart[] = [];
  for (const block of blocks) {
    const last = content.at(-1);
    if (last?.type === 'text') content[content.length - 1] = { type: 'text', text: last.text + block.text };
    else content.push({ type: 'text', text: block.text });
    if (block.kind === 'resource') for (const part of block.parts ?? []) content.push(toPart(part, options));
  }
  return [{ role: 'user', content }];
}

// --- Internal helpers ---

function toPart(part: MediaPart, options: ToOpenAIMessagesOptions): OpenAIContentPart {
  if (part.kind === 'image') {
    const url = `data:${part.mimeType};base64,${part.data}`;
    return {
      type: 'image_url',
      image_url: { url, ...(options.imageDetail && { detail: options.imageDetail }) },
    };
  }
  if (part.kind === 'document') {
    return {
      type: 'file',
      file: { filename: fileNameOf(part), file_data: `data:${part.mimeType};base64,${part.data}` },
    };
  }
  const format = audioFormats[part.mimeType];
  if (format) return { type: 'input_audio', input_audio: { data: part.data, format } };
  return { type: 'text', text: unsupportedPartText(part, 'OpenAI Chat Completions (wav and mp3 only)') };
}
