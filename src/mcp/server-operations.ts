import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  Resource,
  ResourceTemplateType as ResourceTemplate,
  Tool,
} from '@modelcontextprotocol/client';
import type { CappedReadResult } from './cap-read-result.js';
import type { CallOptions, CompleteRequest, ListOptions, ReadOptions } from './operation-schemas.js';
import type { ServerStatus } from './server-status.js';
import type { Skill } from './skill-schemas.js';

/** Candidates a server offered for one argument (at most 100, MCP spec). */
export interface Completion {
  readonly values: string[];
  /** How many candidates exist in all, when the server says. */
  readonly total?: number;
  readonly hasMore?: boolean;
}

/**
 * The operations on named MCP servers, as the registry (the operator's view) and a pipeline's
 * policy-bound view both offer them: code that lists, reads or gets prompts takes either.
 */
export interface ServerOperations {
  /** Configured server names (in a bound view: those the principal may list). */
  readonly serverNames: string[];
  has(server: string): boolean;
  /** A per-user server's status is one principal's: `{ principal }` is required for it. */
  status(server: string, options?: Pick<CallOptions, 'principal'>): ServerStatus;
  statuses(): ServerStatus[];
  listResources(
    server: string,
    options?: ListOptions,
  ): Promise<{ resources: Resource[]; nextCursor?: string }>;
  listResourceTemplates(
    server: string,
    options?: ListOptions,
  ): Promise<{ resourceTemplates: ResourceTemplate[]; nextCursor?: string }>;
  readResource(server: string, uri: string, options?: ReadOptions): Promise<CappedReadResult>;
  subscribeResource(server: string, uri: string, options?: CallOptions): Promise<void>;
  unsubscribeResource(server: string, uri: string, options?: CallOptions): Promise<void>;
  listPrompts(server: string, options?: ListOptions): Promise<{ prompts: Prompt[]; nextCursor?: string }>;
  getPrompt(
    server: string,
    name: string,
    args?: Record<string, string>,
    options?: CallOptions,
  ): Promise<GetPromptResult>;
  complete(server: string, request: CompleteRequest, options?: CallOptions): Promise<Completion>;
  listSkills(server: string, options?: ListOptions): Promise<{ skills: Skill[]; nextCursor?: string }>;
  getSkill(server: string, uri: string, options?: CallOptions): Promise<Skill>;
  listTools(server: string, options?: ListOptions): Promise<{ tools: Tool[]; nextCursor?: string }>;
  callTool(
    server: string,
    name: string,
    args?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<CallToolResult>;
}
