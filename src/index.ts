// The public API of mcp-resource-context.
// Any new export added here becomes public API. Use named exports, not wildcards.
// This entry stays free of Node-only extras: no CLI, no SQLite, no child_process (stdio
// transports are imported lazily, when a stdio server is first used).

export type { AttachmentStore } from './attachments/attachment-store.js';
export { MemoryAttachmentStore } from './attachments/memory-attachment-store.js';
export { resolveTargetUri } from './attachments/resolve-target-uri.js';
export { createTiktokenTokenizer } from './budget/tiktoken-tokenizer.js';
export type { Tokenizer } from './budget/tokenizer.js';
export { type MediaType, parseMediaType } from './convert/media-type.js';
export { ContextError, type ContextErrorCode, type ContextErrorDetails } from './errors.js';
export {
  type CallOptions,
  type ListOptions,
  McpServerRegistry,
  type McpServerRegistryOptions,
} from './mcp/mcp-server-registry.js';
export type { McpServerConfig, McpServerConfigInput } from './mcp/server-config.js';
export type { ConnectionState } from './mcp/server-connection.js';
export {
  type AccessDecision,
  AccessPolicy,
  type AccessPolicyOptions,
  type AccessRequest,
} from './policy/access-policy.js';
export {
  type ProviderEvents,
  ResourceContextProvider,
  type ResourceContextProviderOptions,
} from './provider/resource-context-provider.js';
export { contextPreamble } from './render/frame-resource.js';
export { renderText } from './render/render-text.js';
export type {
  Attachment,
  AttachmentOptions,
  AttachmentTarget,
  BlockProvenance,
  BudgetOptions,
  CacheStatus,
  ContextBlock,
  InjectionTrace,
  MessageAttachment,
  ModelCapabilities,
  OmittedContent,
  PinInput,
  ProvideResult,
  Scope,
  ScopeKind,
  SupersededAttachment,
  TraceEntry,
  TraceStatus,
  Turn,
} from './types.js';
