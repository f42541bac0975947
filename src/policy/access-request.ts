import type { AccessLimits } from '../mcp/access-limits.js';

export type { AccessLimits } from '../mcp/access-limits.js';

export const accessOperations = ['list', 'read', 'subscribe', 'prompt', 'tool'] as const;
/** `list`: resources and templates; `prompt`: list and get prompts; `tool`: list and call tools. */
export type AccessOperation = (typeof accessOperations)[number];

export interface Principal {
  readonly pipelineId: string;
  readonly agentId?: string;
}

export interface AccessRequest extends Principal {
  readonly server: string;
  readonly operation: AccessOperation;
  readonly uri?: string;
  /** The prompt's name, for `prompt`. */
  readonly prompt?: string;
  /** The tool's name, for `tool`. */
  readonly tool?: string;
}

export type AccessDecision =
  | { readonly allowed: true; readonly limits: AccessLimits }
  | { readonly allowed: false; readonly reason: string };

/** What decides requests: the AccessPolicy. */
export interface Authorizer {
  authorize(request: AccessRequest): AccessDecision;
}
