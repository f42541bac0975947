// The `mcp-resource-context/tools` entry: model-facing exploration tools (list_mcp_resources, read_mcp_resource) under the same policy and budget, and resource links in tool results turned into attachments.
// Any new export added here becomes public API. Use named exports, not wildcards.

export { attachmentsFromLinks } from './links/attachments-from-links.js';
export { type RenderedToolResult, renderToolResult } from './links/render-tool-result.js';
export type { ResourceLink } from './links/resource-link.js';
export {
  createExplorationTools,
  type ExplorationTools,
  type ExplorationToolsOptions,
  type ToolDefinition,
  type ToolResult,
} from './tools/create-exploration-tools.js';
