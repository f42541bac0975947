import type { GetPromptResult } from '@modelcontextprotocol/client';
import type { ConverterRegistry } from '../convert/converter-registry.js';
import { prepareAttachment } from '../convert/prepare-attachment.js';
import { describeResourceLink, type ResourceLink, toResourceLink } from '../links/resource-link.js';
import { assembleBody } from '../render/assemble-body.js';
import { frameResource } from '../render/frame-resource.js';
import { neutralizeText } from '../render/neutralize-text.js';
import type { MediaPart, ModelCapabilities, OmittedContent } from '../types.js';

/** One piece of a rendered prompt message: text (embedded resources arrive framed) or a media part. */
export type RenderedPromptContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'media'; readonly part: MediaPart };

export interface RenderedPromptMessage {
  readonly role: 'user' | 'assistant';
  readonly content: readonly RenderedPromptContent[];
  /** Items the model cannot be shown (binary, media it does not accept), named in the text too. */
  readonly omittedContents: readonly OmittedContent[];
  /** `resource_link` items: named in `content`, not read; `attachmentsFromLinks` attaches them. */
  readonly links: readonly ResourceLink[];
}

export interface RenderPromptOptions {
  readonly model?: ModelCapabilities;
  readonly converters?: ConverterRegistry;
}

/**
 * Turns `prompts/get` messages into model-ready content, roles kept. Text passes as the server
 * wrote it (the user chose to run this prompt) with control and special-token text neutralized; an embedded resource goes through the same
 * conversion, escaping and framing as any attached resource; images and audio become parts when
 * the model takes them and a visible placeholder otherwise; a resource link is named, not read.
 */
export async function renderPromptMessages(
  server: string,
  messages: GetPromptResult['messages'],
  options: RenderPromptOptions = {},
): Promise<RenderedPromptMessage[]> {
  return Promise.all(
    messages.map(async (message) => {
      const content: RenderedPromptContent[] = [];
      const omittedContents: OmittedContent[] = [];
      const links: ResourceLink[] = [];
      const item = message.content;
      if (item.type === 'text') {
        content.push({ type: 'text', text: neutralizeText(item.text) });
      } else if (item.type === 'image' || item.type === 'audio') {
        // Media inline in a prompt is converted as a one-item resource would be.
        const uri = `prompt:${item.type}`;
        const rendered = await renderResource(
          server,
          { uri, mimeType: item.mimeType, blob: item.data },
          options,
        );
        content.push(...rendered.content);
        omittedContents.push(...rendered.omittedContents);
      } else if (item.type === 'resource') {
        const rendered = await renderResource(server, item.resource, options);
        content.push(...rendered.content);
        omittedContents.push(...rendered.omittedContents);
      } else if (item.type === 'resource_link') {
        // A handle, not content: named here, read only when the host attaches it.
        const link = toResourceLink(server, item);
        links.push(link);
        content.push({ type: 'text', text: neutralizeText(describeResourceLink(link)) });
      }
      return { role: message.role, content, omittedContents, links };
    }),
  );
}

// --- Internal helpers ---

type EmbeddedResource = Extract<
  GetPromptResult['messages'][number]['content'],
  { type: 'resource' }
>['resource'];

async function renderResource(
  server: string,
  resource: EmbeddedResource,
  options: RenderPromptOptions,
): Promise<{ content: RenderedPromptContent[]; omittedContents: OmittedContent[] }> {
  const { composable, converted } = prepareAttachment(
    { scope: 'message', server, uri: resource.uri },
    { contents: [resource] },
    options.converters ? { converters: options.converters } : {},
  );
  const assembled = assembleBody(composable.sections, options.model);
  const text = frameResource(
    {
      scope: 'message',
      server,
      uri: resource.uri,
      mimeType: converted.mimeType,
      sha256: converted.sha256,
      truncated: false,
    },
    assembled.body,
  );
  return {
    content: [
      { type: 'text', text },
      ...assembled.parts.map(({ part }) => ({ type: 'media' as const, part })),
    ],
    omittedContents: [...assembled.omittedContents],
  };
}
