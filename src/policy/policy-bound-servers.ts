import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/client';
import { mimeTypeAllowed } from '../convert/mime-type-pattern.js';
import { ContextError } from '../errors.js';
import type { AccessLimits } from '../mcp/access-limits.js';
import { applyReadLimits } from '../mcp/apply-read-limits.js';
import type { CappedReadResult } from '../mcp/cap-read-result.js';
import type { CallOptions, CompleteRequest, ListOptions, ReadOptions } from '../mcp/operation-schemas.js';
import type { Completion, ServerOperations } from '../mcp/server-operations.js';
import type { ServerStatus } from '../mcp/server-status.js';
import type { Skill } from '../mcp/skill-schemas.js';
import type { AccessDecision, AccessRequest, Authorizer, Principal } from './access-request.js';
import { authorizeOperation, type DenialAudit } from './authorize-operation.js';

/** What to ask a principal's access for: the request without the principal. */
export type PrincipalRequest = Omit<AccessRequest, keyof Principal>;

/**
 * A pipeline's (or agent's) view of the registry, made by `AccessPolicy.bind`: the registry's
 * operations, each authorized before anything is sent. Listings keep only what the binding
 * admits (cursors preserved); a read, prompt or tool outside it is POLICY_DENIED and never
 * reaches the server.
 */
export class PolicyBoundServers implements ServerOperations {
  readonly #servers: ServerOperations & DenialAudit;
  readonly #policy: Authorizer;
  readonly principal: Principal;

  constructor(servers: ServerOperations & DenialAudit, policy: Authorizer, principal: Principal) {
    this.#servers = servers;
    this.#policy = policy;
    this.principal = { ...principal };
  }

  /** The configured servers this principal may list resources of. */
  get serverNames(): string[] {
    return this.#servers.serverNames.filter((server) => this.#decide({ server, operation: 'list' }).allowed);
  }

  has(server: string): boolean {
    return this.#servers.has(server) && this.serverNames.includes(server);
  }

  status(server: string, options: Pick<CallOptions, 'principal'> = {}): ServerStatus {
    this.#require({ server, operation: 'list' }, 'status');
    return this.#servers.status(server, options);
  }

  /**
   * The registry's statuses of the servers this principal may list. A per-user server's is its
   * status as a whole (no principal's session): `status(name, { principal })` gives one's.
   */
  statuses(): ServerStatus[] {
    const visible = new Set(this.serverNames);
    return this.#servers.statuses().filter((status) => visible.has(status.server));
  }

  async listResources(
    server: string,
    options: ListOptions = {},
  ): Promise<{ resources: Resource[]; nextCursor?: string }> {
    const limits = this.#require({ server, operation: 'list' }, 'resources/list');
    const result = await this.#servers.listResources(server, this.#as(options));
    const resources = result.resources.filter(
      (resource) => this.#visible(server, resource.uri) && mimeTypeVisible(resource.mimeType, limits),
    );
    return { ...result, resources };
  }

  async listResourceTemplates(
    server: string,
    options: ListOptions = {},
  ): Promise<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string }> {
    const limits = this.#require({ server, operation: 'list' }, 'resources/templates/list');
    const result = await this.#servers.listResourceTemplates(server, this.#as(options));
    const resourceTemplates = result.resourceTemplates.filter(
      (template) => this.#visible(server, template.uriTemplate) && mimeTypeVisible(template.mimeType, limits),
    );
    return { ...result, resourceTemplates };
  }

  async readResource(server: string, uri: string, options: ReadOptions = {}): Promise<CappedReadResult> {
    const limits = this.#require({ server, operation: 'read', uri }, 'resources/read');
    const maxBytes = Math.min(options.maxBytes ?? Infinity, limits.maxBytes ?? Infinity);
    const result = await this.#servers.readResource(server, uri, {
      ...this.#as(options),
      ...(Number.isFinite(maxBytes) && { maxBytes }),
    });
    return applyReadLimits(result, limits, { server, uri });
  }

  async subscribeResource(server: string, uri: string, options: CallOptions = {}): Promise<void> {
    this.#require({ server, operation: 'subscribe', uri }, 'resources/subscribe');
    await this.#servers.subscribeResource(server, uri, this.#as(options));
  }

  async unsubscribeResource(server: string, uri: string, options: CallOptions = {}): Promise<void> {
    this.#require({ server, operation: 'subscribe', uri }, 'resources/unsubscribe');
    await this.#servers.unsubscribeResource(server, uri, this.#as(options));
  }

  async listPrompts(
    server: string,
    options: ListOptions = {},
  ): Promise<{ prompts: Prompt[]; nextCursor?: string }> {
    this.#require({ server, operation: 'prompt' }, 'prompts/list');
    const result = await this.#servers.listPrompts(server, this.#as(options));
    const prompts = result.prompts.filter(
      (prompt) => this.#decide({ server, operation: 'prompt', prompt: prompt.name }).allowed,
    );
    return { ...result, prompts };
  }

  async getPrompt(
    server: string,
    name: string,
    args: Record<string, string> = {},
    options: CallOptions = {},
  ): Promise<GetPromptResult> {
    this.#require({ server, operation: 'prompt', prompt: name }, 'prompts/get', Object.keys(args).sort());
    return this.#servers.getPrompt(server, name, args, this.#as(options));
  }

  /**
   * Completion for a template argument needs the template to be listable by this binding; for a
   * prompt argument, the prompt to be allowed.
   */
  async complete(server: string, request: CompleteRequest, options: CallOptions = {}): Promise<Completion> {
    if (request.prompt !== undefined) {
      this.#require({ server, operation: 'prompt', prompt: request.prompt }, 'completion/complete', [
        request.argument,
      ]);
    } else {
      const uri = String(request.template);
      this.#require({ server, operation: 'list', uri }, 'completion/complete', [request.argument]);
    }
    return this.#servers.complete(server, request, this.#as(options));
  }

  /** The skills this binding may read (by the URI of each SKILL.md). */
  async listSkills(
    server: string,
    options: ListOptions = {},
  ): Promise<{ skills: Skill[]; nextCursor?: string }> {
    this.#require({ server, operation: 'list' }, 'skills/list');
    const result = await this.#servers.listSkills(server, this.#as(options));
    return { ...result, skills: result.skills.filter((skill) => this.#visible(server, skill.uri)) };
  }

  async getSkill(server: string, uri: string, options: CallOptions = {}): Promise<Skill> {
    this.#require({ server, operation: 'read', uri }, 'skills/get');
    return this.#servers.getSkill(server, uri, this.#as(options));
  }

  async listTools(
    server: string,
    options: ListOptions = {},
  ): Promise<{ tools: Tool[]; nextCursor?: string }> {
    this.#require({ server, operation: 'tool' }, 'tools/list');
    const result = await this.#servers.listTools(server, this.#as(options));
    const tools = result.tools.filter(
      (tool) => this.#decide({ server, operation: 'tool', tool: tool.name }).allowed,
    );
    return { ...result, tools };
  }

  async callTool(
    server: string,
    name: string,
    args: Record<string, unknown> = {},
    options: CallOptions = {},
  ): Promise<CallToolResult> {
    this.#require({ server, operation: 'tool', tool: name }, 'tools/call', Object.keys(args).sort());
    return this.#servers.callTool(server, name, args, this.#as(options));
  }

  /**
   * Decides one request for this principal through the one authorization path: a denial is
   * audited under `method`, the MCP method that will not be sent. For callers that report a
   * denial rather than throw it (a provider turn's attachments).
   */
  authorize(
    request: PrincipalRequest | AccessRequest,
    method: string,
    argumentNames?: string[],
  ): AccessDecision {
    return authorizeOperation(this.#policy, this.#servers, this.#asPrincipal(request), method, argumentNames);
  }

  // --- Internal helpers ---

  /** A decision for filtering what is listed: not a request, so not audited. */
  #decide(request: PrincipalRequest): AccessDecision {
    return this.#policy.authorize(this.#asPrincipal(request));
  }

  /**
   * The request as this principal's. Every field named, not spread: `{ ...request, ...principal }`
   * hits a slow path in V8 that cost microseconds per authorization.
   */
  #asPrincipal(request: PrincipalRequest | AccessRequest): AccessRequest {
    const { pipelineId, agentId } = this.principal;
    // A request that already names this view's principal is decided as it is: the provider keeps
    // one per attachment, so a warm turn's authorizations copy nothing.
    if ('pipelineId' in request && request.pipelineId === pipelineId && request.agentId === agentId)
      return request;
    const { server, operation, uri, prompt, tool } = request;
    return { pipelineId, agentId, server, operation, uri, prompt, tool };
  }

  /** Options with this principal as the audit actor (a caller cannot act as someone else). */
  #as<Options extends CallOptions>(options: Options): Options {
    return { ...options, actor: { ...this.principal } };
  }

  /**
   * The limits of an allowed request; POLICY_DENIED, before anything is sent, otherwise (and the
   * refusal is audited under `method`, the MCP method that was not sent).
   */
  #require(request: PrincipalRequest, method: string, argumentNames?: string[]): AccessLimits {
    // Denied before unknown: an unbound principal learns nothing about which servers exist.
    const decision = this.authorize(request, method, argumentNames);
    if (!decision.allowed) {
      throw new ContextError('POLICY_DENIED', decision.reason, {
        server: request.server,
        field: 'operation',
        value: request.uri ?? request.prompt ?? request.tool ?? request.operation,
      });
    }
    return decision.limits;
  }

  #visible(server: string, uri: string): boolean {
    return this.#decide({ server, operation: 'list', uri }).allowed;
  }
}

// --- Module helpers ---

/** A listed item whose declared type the binding refuses is hidden; an undeclared type is left to the read. */
function mimeTypeVisible(mimeType: string | undefined, limits: AccessLimits): boolean {
  if (mimeType === undefined) return true;
  return limits.mimeTypes.every((allowlist) => mimeTypeAllowed(mimeType, allowlist));
}
