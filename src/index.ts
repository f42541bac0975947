// The public API of mcp-resource-context: the core a host wires into its pipeline.
// Any new export added here becomes public API. Use named exports, not wildcards.
// The rest of the library sits on subpath entries, one concern each (./servers, ./credentials,
// ./cache, ./budget, ./convert, ./render, ./prompts, ./tools, ./config, ./audit, and the
// Node-only or optional-peer ones: ./sqlite, ./postgres, ./redis, ./inspector, ./opentelemetry,
// ./ai-sdk). test/public-entry.test.ts pins every entry's list of names.
// This entry stays free of Node-only extras: no CLI, no SQLite, no child_process (stdio
// transports are imported lazily, when a stdio server is first used).

export type { AttachmentStore } from './attachments/attachment-store.js';
export { MemoryAttachmentStore } from './attachments/memory-attachment-store.js';
export type { PinCapOptions } from './attachments/pin-cap-floor.js';
export { createTiktokenTokenizer } from './budget/tiktoken-tokenizer.js';
export type { Tokenizer } from './budget/tokenizer.js';
export { ContextError, type ContextErrorCode, type ContextErrorDetails } from './errors.js';
export { McpServerRegistry, type McpServerRegistryOptions } from './mcp/mcp-server-registry.js';
export type { McpServerConfigInput } from './mcp/server-config.js';
export type { ServerStatus } from './mcp/server-status.js';
export { AccessPolicy, type AccessPolicyOptions } from './policy/access-policy.js';
export { ResourceContextProvider } from './provider/resource-context-provider.js';
export type { ResourceContextProviderOptions } from './provider/resource-context-provider-options.js';
export { renderText } from './render/render-text.js';
export { toAnthropicContent } from './render/to-anthropic-content.js';
export { toOpenAIMessages } from './render/to-openai-messages.js';
// The data a turn takes and returns.
export type {
  Attachment,
  AttachmentOptions,
  AttachmentTarget,
  BlockProvenance,
  BudgetOptions,
  CacheStatus,
  ContextBlock,
  InjectionTrace,
  InstructionsEntry,
  MediaPart,
  MessageAttachment,
  ModelCapabilities,
  OmittedContent,
  PinInput,
  ProvideResult,
  Scope,
  ScopeKind,
  SharedCacheStatus,
  SupersededAttachment,
  TraceEntry,
  TraceServer,
  TraceStatus,
  TruncationStrategyName,
  Turn,
} from './types.js';
