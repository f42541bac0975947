import { z } from 'zod';
import { parseOptions } from '../options/parse-options.js';

const bindingSchema = z.strictObject({
  /** Servers this pipeline may use; `"*"` binds every configured server. */
  servers: z.array(z.string().min(1)),
});

const policyOptionsSchema = z.strictObject({
  /** Keyed by pipeline id. A pipeline without a binding is denied everything. */
  bindings: z.record(z.string().min(1), bindingSchema),
});

export type AccessPolicyOptions = z.input<typeof policyOptionsSchema>;

export interface AccessRequest {
  readonly pipelineId: string;
  readonly server: string;
  readonly operation: 'list' | 'read' | 'prompt';
  readonly uri?: string;
}

export type AccessDecision =
  | { readonly allowed: true }
  | { readonly allowed: false; readonly reason: string };

/**
 * Who may use which server. Deny by default: a pipeline that is not bound to a server can
 * neither enumerate nor read its resources or prompts.
 */
export class AccessPolicy {
  readonly #bindings: z.output<typeof policyOptionsSchema>['bindings'];

  constructor(options: AccessPolicyOptions) {
    this.#bindings = parseOptions(policyOptionsSchema, options, 'policy').bindings;
  }

  authorize(request: AccessRequest): AccessDecision {
    const binding = Object.hasOwn(this.#bindings, request.pipelineId)
      ? this.#bindings[request.pipelineId]
      : undefined;
    if (!binding) return { allowed: false, reason: `pipeline "${request.pipelineId}" has no binding` };
    if (binding.servers.includes('*') || binding.servers.includes(request.server)) return { allowed: true };
    return {
      allowed: false,
      reason: `pipeline "${request.pipelineId}" is not bound to server "${request.server}"`,
    };
  }
}
