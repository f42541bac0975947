import type { CallToolResult } from '@modelcontextprotocol/client';
import { describeResourceLink, type ResourceLink, toResourceLink } from './resource-link.js';

/** A tool's result for the model: its text, with each resource link named, and the links as handles. */
export interface RenderedToolResult {
  readonly server: string;
  readonly isError: boolean;
  readonly text: string;
  readonly links: readonly ResourceLink[];
  /** Items other than text and links (images, embedded resources), by type: not rendered here. */
  readonly otherContent: readonly string[];
}

/**
 * Turns `tools/call` output into text where every `resource_link` is a named, unread handle
 * (never fetched here), and collects the links for `attachmentsFromLinks`.
 */
export function renderToolResult(server: string, result: CallToolResult): RenderedToolResult {
  const lines: string[] = [];
  const links: ResourceLink[] = [];
  const otherContent: string[] = [];
  for (const item of result.content) {
    if (item.type === 'text') lines.push(item.text);
    else if (item.type === 'resource_link') {
      const link = toResourceLink(server, item);
      links.push(link);
      lines.push(describeResourceLink(link));
    } else otherContent.push(item.type);
  }
  return { server, isError: result.isError === true, text: lines.join('\n'), links, otherContent };
}
