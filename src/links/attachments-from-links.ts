import type { MessageAttachment } from '../types.js';
import type { ResourceLink } from './resource-link.js';

/**
 * The resource links of a prompt's or a tool's result as message attachments, one per
 * (server, uri), in the order they appeared: pass them in `turn.message.attachments` and they are
 * authorized, read, cached and budgeted like anything else the user attached.
 */
export function attachmentsFromLinks(
  result: { readonly links: readonly ResourceLink[] },
  options: { readonly maxTokens?: number; readonly priority?: number } = {},
): MessageAttachment[] {
  const seen = new Set<string>();
  const attachments: MessageAttachment[] = [];
  for (const link of result.links) {
    const key = `${link.server}\u0000${link.uri}`;
    if (seen.has(key)) continue;
    seen.add(key);
    attachments.push({
      server: link.server,
      uri: link.uri,
      ...(options.maxTokens !== undefined && { maxTokens: options.maxTokens }),
      ...(options.priority !== undefined && { priority: options.priority }),
    });
  }
  return attachments;
}
