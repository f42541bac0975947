// The public API of mcp-resource-context.
// Any new export added here becomes public API. Use named exports, not wildcards.
// This entry stays free of Node-only extras: no CLI, no SQLite, no child_process (stdio
// transports are imported lazily, when a stdio server is first used).

export type { AttachmentStore } from './attachments/attachment-store.js';
export { MemoryAttachmentStore } from './attachments/memory-attachment-store.js';
export type { PinCapOptions } from './attachments/pin-cap-floor.js';
export { resolveTargetUri } from './attachments/resolve-target-uri.js';
export type { AuditActor, AuditRecord, AuditSink, AuditStatus } from './audit/audit-record.js';
export { JsonlAuditSink } from './audit/jsonl-audit-sink.js';
export { MemoryAuditSink } from './audit/memory-audit-sink.js';
export {
  collectServerInstructions,
  type InstructionSource,
  type ServerInstructions,
  type ServerInstructionsEntry,
  type ServerInstructionsOptions,
  serverInstructionsPreamble,
} from './budget/collect-server-instructions.js';
export { encodingForModel, type TokenizerEncoding } from './budget/encoding-for-model.js';
export { type CutTarget, smallestUsefulCut } from './budget/smallest-useful-cut.js';
export { createTiktokenTokenizer, type TiktokenTokenizerOptions } from './budget/tiktoken-tokenizer.js';
export type { BoundedEncoding, Tokenizer } from './budget/tokenizer.js';
export {
  type CachedContent,
  type CacheEvents,
  type CacheMetrics,
  type CacheRead,
  ContentCache,
  type ContentCacheOptions,
  type ReadRequest,
} from './cache/content-cache.js';
export { invalidateOnNotifications } from './cache/invalidate-on-notifications.js';
export type {
  Invalidation,
  SharedContent,
  SharedKey,
  SharedLookup,
  SharedTier,
} from './cache/shared-tier.js';
export { loadContextConfig } from './config/load-context-config.js';
export {
  type ContextConfig,
  type ParseContextConfigOptions,
  parseContextConfig,
} from './config/parse-context-config.js';
export type { Converter, ConverterInput, ConverterOutput, MediaKind } from './convert/converter.js';
export {
  ConverterRegistry,
  createConverterRegistry,
  defaultConverters,
} from './convert/converter-registry.js';
export { createJsonConverter, type JsonConverterOptions } from './convert/converters/json-converter.js';
export { type MediaType, parseMediaType } from './convert/media-type.js';
export { isUiResource } from './convert/ui-resource.js';
export type { AuthConfig, AuthConfigInput } from './credentials/auth-config.js';
export { createMtlsFetch, type MtlsOptions } from './credentials/create-mtls-fetch.js';
export { credentialFileOAuthStore } from './credentials/credential-file-oauth-store.js';
export { credentialKeyEnv, generateCredentialKey } from './credentials/credential-key.js';
export type { CredentialSource } from './credentials/credential-source.js';
export {
  type CredentialFile,
  type CredentialFileOptions,
  openCredentialFile,
  writeCredentialFile,
} from './credentials/encrypted-credential-file.js';
export { MemoryOAuthStore } from './credentials/memory-oauth-store.js';
export type {
  AuthorizationAnswer,
  AuthorizationRequest,
  OAuthAuthorizer,
  OAuthRecordKind,
  OAuthStore,
  OAuthSubject,
} from './credentials/oauth-authorizer.js';
export type { SecretValue } from './credentials/secret-value.js';
export { ContextError, type ContextErrorCode, type ContextErrorDetails } from './errors.js';
export { attachmentsFromLinks } from './links/attachments-from-links.js';
export { type RenderedToolResult, renderToolResult } from './links/render-tool-result.js';
export type { ResourceLink } from './links/resource-link.js';
export {
  type AggregatedResource,
  type AggregatedResources,
  type AggregateResourcesOptions,
  aggregateResources,
  type ResourceSource,
} from './mcp/aggregate-resources.js';
export type { CappedReadResult, ReadTruncation, TruncatedContent } from './mcp/cap-read-result.js';
export type { ActiveTransport } from './mcp/connect-with-fallback.js';
export {
  checkEndpoint,
  type EndpointPolicy,
  type EndpointPolicyOptions,
  isRestrictedAddress,
} from './mcp/endpoint-policy.js';
export {
  type CallOptions,
  type CompleteRequest,
  type Completion,
  type ListOptions,
  McpServerRegistry,
  type McpServerRegistryOptions,
  type ReadOptions,
  type RegistryEvents,
  type Skill,
  type SkillResource,
} from './mcp/mcp-server-registry.js';
export type { ReconnectOptions } from './mcp/reconnect-schedule.js';
export type { McpServerConfig, McpServerConfigInput } from './mcp/server-config.js';
export type { ConnectionState, ElicitationHandler, ElicitationRequest } from './mcp/server-connection.js';
export type { ServerStatus } from './mcp/server-status.js';
export { skillsExtensionId } from './mcp/skill-schemas.js';
export {
  type AccessBinding,
  type AccessDecision,
  type AccessLimits,
  type AccessOperation,
  AccessPolicy,
  type AccessPolicyOptions,
  type AccessRequest,
  type Principal,
} from './policy/access-policy.js';
export { PolicyBoundServers } from './policy/policy-bound-servers.js';
export { parsePromptArguments } from './prompts/parse-prompt-arguments.js';
export { type PromptCommand, parsePromptCommand } from './prompts/parse-prompt-command.js';
export {
  type RenderedPromptContent,
  type RenderedPromptMessage,
  type RenderPromptOptions,
  renderPromptMessages,
} from './prompts/render-prompt-messages.js';
export {
  type PromptCommandOptions,
  type PromptCommandResult,
  type PromptSource,
  runPromptCommand,
} from './prompts/run-prompt-command.js';
export type { ProviderEvents } from './provider/provider-events.js';
export { ResourceContextProvider } from './provider/resource-context-provider.js';
export type { ResourceContextProviderOptions } from './provider/resource-context-provider-options.js';
export { contextPreamble } from './render/frame-resource.js';
export { neutralizeText, restoreText } from './render/neutralize-text.js';
export { renderText } from './render/render-text.js';
export {
  type AnthropicContentBlock,
  type AnthropicImageMediaType,
  type ToAnthropicContentOptions,
  toAnthropicContent,
} from './render/to-anthropic-content.js';
export {
  type OpenAIContentPart,
  type OpenAIMessage,
  type ToOpenAIMessagesOptions,
  toOpenAIMessages,
} from './render/to-openai-messages.js';
export { readSkillFile } from './skills/read-skill-file.js';
export type { SkillLimits, SkillLimitsInput } from './skills/skill-limits.js';
export {
  createExplorationTools,
  type ExplorationTools,
  type ExplorationToolsOptions,
  type ToolDefinition,
  type ToolResult,
} from './tools/create-exploration-tools.js';
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
  TraceStatus,
  TruncationStrategyName,
  Turn,
} from './types.js';
