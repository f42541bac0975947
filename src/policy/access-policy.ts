import { z } from 'zod';
import { ContextError } from '../errors.js';
import type { ServerOperations } from '../mcp/server-operations.js';
import { nearestKey } from '../options/nearest-key.js';
import { parseOptions } from '../options/parse-options.js';
import {
  type AccessDecision,
  type AccessOperation,
  type AccessRequest,
  type Authorizer,
  accessOperations,
  type Principal,
} from './access-request.js';
import type { DenialAudit } from './authorize-operation.js';
import { PolicyBoundServers } from './policy-bound-servers.js';
import {
  compileNamePattern,
  compileUriPattern,
  matchesAnyUriPattern,
  matchesUriGrant,
} from './uri-pattern.js';

export type {
  AccessDecision,
  AccessLimits,
  AccessOperation,
  AccessRequest,
  Principal,
} from './access-request.js';

/** Without `operations`, a binding allows everything but tools: tools act, resources only inform. */
const defaultOperations: readonly AccessOperation[] = ['list', 'read', 'subscribe', 'prompt'];

const grantFields = {
  /** URI patterns (globs or RFC 6570 templates) this binding may list and read; absent: all. */
  resources: z.array(z.string().min(1)).optional(),
  /** Prompt name globs; absent: all. */
  prompts: z.array(z.string().min(1)).optional(),
  /** Tool name globs; absent: all (tools still need the `tool` operation). */
  tools: z.array(z.string().min(1)).optional(),
  operations: z.array(z.enum(accessOperations)).optional(),
  /** Media type patterns a read may return (`text/*`, `application/json`, `+json`); absent: all. */
  mimeTypes: z.array(z.string().min(1)).optional(),
  /** Most content bytes one read may keep. */
  maxBytes: z.number().int().positive().optional(),
};

const serverGrantSchema = z.strictObject({ name: z.string().min(1), ...grantFields });

const bindingSchema = z.strictObject({
  /** Server names (`"*"`: every configured server), or per-server grants overriding the binding's fields. */
  servers: z.array(z.union([z.string().min(1), serverGrantSchema])),
  ...grantFields,
});

const policyOptionsSchema = z.strictObject({
  /** Keyed by pipeline id. A pipeline without a binding is denied everything. */
  bindings: z.record(z.string().min(1), bindingSchema),
  /** Keyed by agent id. A request naming an agent needs both its pipeline's and its agent's binding. */
  agents: z.record(z.string().min(1), bindingSchema).default({}),
});

export type AccessPolicyOptions = z.input<typeof policyOptionsSchema>;
export type AccessBinding = z.input<typeof bindingSchema>;

/**
 * Who may use which server, URI, prompt and tool. Deny by default: a pipeline that is not
 * bound to a server can neither enumerate nor read its resources or prompts.
 */
export class AccessPolicy implements Authorizer {
  readonly #bindings: ReadonlyMap<string, CompiledBinding>;
  readonly #agents: ReadonlyMap<string, CompiledBinding>;
  /** Every server name a binding grants, with its place in the options (for error messages). */
  readonly #namedServers: readonly { readonly field: string; readonly server: string }[];

  constructor(options: AccessPolicyOptions) {
    const parsed = parseOptions(policyOptionsSchema, options, 'policy');
    this.#bindings = new Map(Object.entries(parsed.bindings).map(([id, binding]) => [id, compile(binding)]));
    this.#agents = new Map(Object.entries(parsed.agents).map(([id, binding]) => [id, compile(binding)]));
    this.#namedServers = (['bindings', 'agents'] as const).flatMap((kind) =>
      Object.entries(parsed[kind]).flatMap(([id, binding]) =>
        binding.servers.map((entry, index) => ({
          field: `policy.${kind}.${id}.servers.${index}`,
          server: typeof entry === 'string' ? entry : entry.name,
        })),
      ),
    );
  }

  /**
   * Throws UNKNOWN_PIPELINE (or UNKNOWN_AGENT) when the principal has no binding at all: a
   * typo'd pipeline id is a mistake to report, not a turn to answer with empty context. (A
   * pipeline that is bound, but not to some server, is still simply denied that server.)
   */
  requireKnown(principal: Principal): void {
    refuseUnknown('pipeline', principal.pipelineId, this.#bindings);
    if (principal.agentId !== undefined) refuseUnknown('agent', principal.agentId, this.#agents);
  }

  /**
   * Throws UNKNOWN_SERVER when a binding names a server that is not among `configured` (the
   * registry's names), with the binding's place and the nearest configured name. `"*"` always passes.
   */
  refuseUnknownServers(configured: readonly string[]): void {
    const names = new Set(configured);
    const unknown = this.#namedServers.find(({ server }) => server !== '*' && !names.has(server));
    if (!unknown) return;
    const suggestion = nearestKey(unknown.server, configured);
    throw new ContextError(
      'UNKNOWN_SERVER',
      `${unknown.field}: no MCP server named "${unknown.server}" is configured${suggestion ? `; did you mean "${suggestion}"?` : ''} (configured: ${configured.join(', ') || 'none'})`,
      { field: unknown.field, value: unknown.server, server: unknown.server },
    );
  }

  authorize(request: AccessRequest): AccessDecision {
    const pipeline = decide(this.#bindings.get(request.pipelineId), 'pipeline', request.pipelineId, request);
    if (!pipeline.allowed || request.agentId === undefined) return pipeline;
    const agent = decide(this.#agents.get(request.agentId), 'agent', request.agentId, request);
    if (!agent.allowed) return agent;
    const maxBytes = Math.min(pipeline.limits.maxBytes ?? Infinity, agent.limits.maxBytes ?? Infinity);
    return {
      allowed: true,
      limits: {
        ...(Number.isFinite(maxBytes) && { maxBytes }),
        mimeTypes: [...pipeline.limits.mimeTypes, ...agent.limits.mimeTypes],
      },
    };
  }

  /** Whether a listed URI (or template string) is visible to the principal on that server. */
  allowsUri(principal: Principal, server: string, uri: string): boolean {
    return this.authorize({ ...principal, server, operation: 'list', uri }).allowed;
  }

  /**
   * A pipeline's (or agent's) view of the registry: the same operations, each authorized
   * first; listings show only what the binding admits, and everything else is POLICY_DENIED.
   */
  bind(servers: ServerOperations & DenialAudit, principal: Principal): PolicyBoundServers {
    return new PolicyBoundServers(servers, this, principal);
  }
}

// --- Internal helpers ---

function refuseUnknown(
  kind: 'pipeline' | 'agent',
  id: string,
  bindings: ReadonlyMap<string, CompiledBinding>,
): void {
  if (bindings.has(id)) return;
  const known = [...bindings.keys()];
  const suggestion = nearestKey(id, known);
  throw new ContextError(
    kind === 'pipeline' ? 'UNKNOWN_PIPELINE' : 'UNKNOWN_AGENT',
    `no ${kind} "${id}": the access policy has no binding for it${suggestion ? `; did you mean "${suggestion}"?` : ''} (${kind === 'pipeline' ? 'bindings' : 'agents'}: ${known.join(', ') || 'none'})`,
    { field: kind === 'pipeline' ? 'pipelineId' : 'agentId', value: id },
  );
}

interface CompiledGrant {
  readonly resources?: readonly RegExp[];
  readonly prompts?: readonly RegExp[];
  readonly tools?: readonly RegExp[];
  readonly operations: readonly AccessOperation[];
  /** The decision for a request this grant admits: built once, asked for on every read of every turn. */
  readonly allowed: AccessDecision;
}

interface CompiledBinding {
  readonly grants: ReadonlyMap<string, CompiledGrant>;
}

type GrantInput = { [Key in keyof typeof grantFields]?: z.output<(typeof grantFields)[Key]> };

function compile(binding: z.output<typeof bindingSchema>): CompiledBinding {
  const grants = new Map<string, CompiledGrant>();
  for (const entry of binding.servers) {
    const [name, own] = typeof entry === 'string' ? [entry, {}] : [entry.name, entry];
    grants.set(name, compileGrant({ ...pickGrant(binding), ...pickGrant(own) }));
  }
  return { grants };
}

function pickGrant(source: GrantInput): GrantInput {
  const result: GrantInput = {};
  for (const key of Object.keys(grantFields) as (keyof GrantInput)[]) {
    if (source[key] !== undefined) Object.assign(result, { [key]: source[key] });
  }
  return result;
}

function compileGrant(grant: GrantInput): CompiledGrant {
  const allowed: AccessDecision = deepFreeze({
    allowed: true,
    limits: {
      ...(grant.maxBytes !== undefined && { maxBytes: grant.maxBytes }),
      mimeTypes: grant.mimeTypes ? [grant.mimeTypes] : [],
    },
  });
  return {
    allowed,
    ...(grant.resources && { resources: grant.resources.map(compileUriPattern) }),
    ...(grant.prompts && { prompts: grant.prompts.map(compileNamePattern) }),
    ...(grant.tools && { tools: grant.tools.map(compileNamePattern) }),
    operations: grant.operations ?? defaultOperations,
  };
}

function decide(
  binding: CompiledBinding | undefined,
  kind: 'pipeline' | 'agent',
  id: string,
  request: AccessRequest,
): AccessDecision {
  if (!binding) return { allowed: false, reason: `${kind} "${id}" has no binding` };
  // A grant naming the server beats the wildcard.
  const grant = binding.grants.get(request.server) ?? binding.grants.get('*');
  if (!grant) return { allowed: false, reason: `${kind} "${id}" is not bound to server "${request.server}"` };
  if (!grant.operations.includes(request.operation)) {
    return {
      allowed: false,
      reason: `${kind} "${id}" may not ${request.operation} on server "${request.server}"`,
    };
  }
  if (request.uri !== undefined && !matchesUriGrant(request.uri, grant.resources)) {
    return {
      allowed: false,
      reason: `${kind} "${id}" may not access ${request.uri} on server "${request.server}"`,
    };
  }
  if (request.prompt !== undefined && !matchesAnyUriPattern(request.prompt, grant.prompts)) {
    return {
      allowed: false,
      reason: `${kind} "${id}" may not use prompt "${request.prompt}" of server "${request.server}"`,
    };
  }
  if (request.tool !== undefined && !matchesAnyUriPattern(request.tool, grant.tools)) {
    return {
      allowed: false,
      reason: `${kind} "${id}" may not call tool "${request.tool}" of server "${request.server}"`,
    };
  }
  return grant.allowed;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
