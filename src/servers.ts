// The `mcp-resource-context/servers` entry: what the registry's operations take and answer, connection states and status, the endpoint policy, the policy-bound view of a pipeline, skills, and template pins' URIs.
// Any new export added here becomes public API. Use named exports, not wildcards.

export { resolveTargetUri } from './attachments/resolve-target-uri.js';
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
export type {
  CallOptions,
  CompleteRequest,
  Completion,
  ListOptions,
  ReadOptions,
  RegistryEvents,
  Skill,
  SkillResource,
} from './mcp/mcp-server-registry.js';
export type { ReconnectOptions } from './mcp/reconnect-schedule.js';
export type { McpServerConfig } from './mcp/server-config.js';
export type {
  ConnectionState,
  ElicitationHandler,
  ElicitationRequest,
  ElicitResult,
} from './mcp/server-connection.js';
export { skillsExtensionId } from './mcp/skill-schemas.js';
export type {
  AccessBinding,
  AccessDecision,
  AccessLimits,
  AccessOperation,
  AccessRequest,
  Principal,
} from './policy/access-policy.js';
export { PolicyBoundServers } from './policy/policy-bound-servers.js';
export type { ProviderEvents } from './provider/provider-events.js';
export { readSkillFile } from './skills/read-skill-file.js';
export type { SkillLimits, SkillLimitsInput } from './skills/skill-limits.js';
