import type { ContentBlock } from '@modelcontextprotocol/client';
import { emptyElement } from '../render/frame-element.js';

/**
 * A `resource_link` a prompt message or a tool result carried (MCP spec, "Resource Links"): a
 * handle to read, not content. The host passes it on as a message attachment
 * (`attachmentsFromLinks`), and it is read like any attachment: policy, budget, cache.
 */
export interface ResourceLink {
  /** The server whose prompt or tool returned the link: its URI is that server's to read. */
  readonly server: string;
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  /** Bytes, as the server states them. */
  readonly size?: number;
}

type ResourceLinkBlock = Extract<ContentBlock, { type: 'resource_link' }>;

/** The handle for one `resource_link` item of `server`'s answer. */
export function toResourceLink(server: string, item: ResourceLinkBlock): ResourceLink {
  return {
    server,
    uri: item.uri,
    name: item.name,
    ...(item.title !== undefined && { title: item.title }),
    ...(item.description !== undefined && { description: item.description }),
    ...(item.mimeType !== undefined && { mimeType: item.mimeType }),
    ...(item.size !== undefined && { size: item.size }),
  };
}

/**
 * How a link is named where the prompt or tool output had it: an element with escaped attributes
 * (the URI and name are the server's words, not ours) that says it was not read.
 */
export function describeResourceLink(link: ResourceLink): string {
  return emptyElement('mcp-resource-link', [
    ['server', link.server],
    ['uri', link.uri],
    ['name', link.title ?? link.name],
    ...(link.mimeType !== undefined ? [['mime', link.mimeType] as const] : []),
    ...(link.size !== undefined ? [['bytes', String(link.size)] as const] : []),
    ['read', 'not yet: the host may attach it'],
  ]);
}
