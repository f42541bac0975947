import { parseMediaType } from './media-type.js';

/**
 * MCP Apps (SEP-1865): a `ui://` resource, served as `text/html;profile=mcp-app`, is an
 * interactive surface for the host to render in a sandbox. It is never model context: its HTML
 * and script would reach the model as instructions it cannot act on.
 */
export function isUiResource(uri: string, mimeType: string | undefined): boolean {
  if (/^ui:/i.test(uri)) return true;
  const mediaType = parseMediaType(mimeType);
  return mediaType?.essence === 'text/html' && mediaType.parameters.profile === 'mcp-app';
}

export const uiResourceReason =
  'an MCP Apps UI resource (ui://, text/html;profile=mcp-app) is for the host to render, never model context';
