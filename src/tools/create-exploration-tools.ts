import { z } from 'zod';
import type { Tokenizer } from '../budget/tokenizer.js';
import type { ConverterRegistry } from '../convert/converter-registry.js';
import { ContextError } from '../errors.js';
import type { McpServerRegistry } from '../mcp/mcp-server-registry.js';
import { parseOptions } from '../options/parse-options.js';
import type { AccessPolicy } from '../policy/access-policy.js';
import type { PolicyBoundServers } from '../policy/policy-bound-servers.js';
import { toSafeJson } from '../render/to-safe-json.js';
import type { ModelCapabilities } from '../types.js';
import { listResourcesArgumentsSchema, readResourceArgumentsSchema } from './exploration-tool-schemas.js';
import { listResourcesForTool } from './list-resources-for-tool.js';
import { readResourceWindow } from './read-resource-window.js';

/** A tool as model APIs describe one: name, description, JSON Schema of its arguments. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

/** The outcome of one call, shaped like MCP's CallToolResult: a failure is a result, not a throw. */
export interface ToolResult {
  readonly content: { readonly type: 'text'; readonly text: string }[];
  readonly structuredContent?: Record<string, unknown>;
  readonly isError?: boolean;
}

export interface ExplorationToolsOptions {
  readonly servers: McpServerRegistry;
  readonly policy: AccessPolicy;
  readonly pipelineId: string;
  readonly agentId?: string;
  /** The provider's tokenizer: offsets and budgets are in its tokens. */
  readonly tokenizer: Tokenizer;
  /** Most tokens any one result may take (the model's `maxTokens` argument is capped by it). */
  readonly maxTokens: number;
  /** What the model accepts natively; must match the provider's turn for offsets to line up on media. */
  readonly model?: ModelCapabilities;
  readonly converters?: ConverterRegistry;
  /** Per-call timeout, in milliseconds. */
  readonly timeoutMs?: number;
  /** List MCP Apps UI resources (`ui://`) too. Default false: they are hidden and counted, never context. */
  readonly includeUiResources?: boolean;
}

export interface ExplorationTools {
  readonly definitions: readonly ToolDefinition[];
  /** Runs a tool; bad arguments, denials and server failures come back as `isError` results. */
  /** `principal`: the host's user the model acts for (per-user servers need it). */
  execute(
    name: string,
    args: unknown,
    options?: { signal?: AbortSignal; principal?: string },
  ): Promise<ToolResult>;
}

const isObjectWith =
  (...names: string[]) =>
  (value: unknown) =>
    typeof value === 'object' &&
    value !== null &&
    names.every((name) => typeof (value as Record<string, unknown>)[name] === 'function');

const optionsSchema = z.strictObject({
  servers: z.custom<object>(isObjectWith('readResource', 'has'), {
    message: 'servers must be an McpServerRegistry',
  }),
  policy: z.custom<object>(isObjectWith('authorize', 'bind'), { message: 'policy must be an AccessPolicy' }),
  tokenizer: z.custom<object>(isObjectWith('encode', 'decode', 'count'), {
    message: "tokenizer is required: the provider's (provider.tokenizer) or createTiktokenTokenizer()",
  }),
  model: z
    .strictObject({
      images: z.boolean().optional(),
      audio: z.boolean().optional(),
      pdf: z.boolean().optional(),
    })
    .optional(),
  converters: z
    .custom<object>(isObjectWith('find', 'register'), { message: 'converters must be a ConverterRegistry' })
    .optional(),
  pipelineId: z.string().min(1),
  agentId: z.string().min(1).optional(),
  maxTokens: z.number().int().positive(),
  timeoutMs: z.number().int().positive().optional(),
  includeUiResources: z.boolean().default(false),
});

/**
 * `list_mcp_resources` and `read_mcp_resource` for hosts that also let the model look around:
 * bound to one pipeline's access policy (deny by default, audited as that pipeline), within a
 * token cap, reading past the provider's truncation markers by token offset. Throws
 * UNKNOWN_PIPELINE (or UNKNOWN_AGENT) when the policy has no binding for the one named.
 */
export function createExplorationTools(options: ExplorationToolsOptions): ExplorationTools {
  const parsed = optionsSchemaParse(options);
  const principal = {
    pipelineId: parsed.pipelineId,
    ...(parsed.agentId !== undefined && { agentId: parsed.agentId }),
  };
  // As a provider turn does: a pipeline (or agent) the policy has never heard of is a typo to
  // report (UNKNOWN_PIPELINE / UNKNOWN_AGENT), not a model left with tools that deny everything.
  options.policy.requireKnown(principal);
  const bound: PolicyBoundServers = options.policy.bind(options.servers, principal);
  const definitions: ToolDefinition[] = [
    {
      name: 'list_mcp_resources',
      description:
        'List the MCP resources this conversation may read: server, uri, name, media type. Filter by server; page with the returned nextCursor.',
      inputSchema: jsonSchemaOf(listResourcesArgumentsSchema),
    },
    {
      name: 'read_mcp_resource',
      description:
        'Read an MCP resource by server and uri. To read past a truncation marker, pass its offset; the answer ends with a new marker when more follows.',
      inputSchema: jsonSchemaOf(readResourceArgumentsSchema),
    },
  ];
  return {
    definitions,
    async execute(name, args, callOptions = {}) {
      const call = {
        ...(callOptions.signal !== undefined && { signal: callOptions.signal }),
        ...(callOptions.principal !== undefined && { principal: callOptions.principal }),
        ...(parsed.timeoutMs !== undefined && { timeoutMs: parsed.timeoutMs }),
      };
      try {
        if (name === 'list_mcp_resources') {
          const listed = await listResourcesForTool(parseArguments(listResourcesArgumentsSchema, args), {
            servers: bound,
            tokenizer: options.tokenizer,
            maxTokens: parsed.maxTokens,
            callOptions: call,
            includeUiResources: parsed.includeUiResources,
          });
          return { content: [{ type: 'text', text: listed.text }], structuredContent: listed.result };
        }
        if (name === 'read_mcp_resource') {
          const request = parseArguments(readResourceArgumentsSchema, args);
          const window = await readResourceWindow(
            {
              server: request.server,
              uri: request.uri,
              offset: request.offset ?? 0,
              maxTokens: Math.min(request.maxTokens ?? parsed.maxTokens, parsed.maxTokens),
            },
            {
              servers: bound,
              tokenizer: options.tokenizer,
              callOptions: call,
              ...(options.model !== undefined && { model: options.model }),
              ...(options.converters !== undefined && { converters: options.converters }),
            },
          );
          const { text, ...facts } = window;
          return { content: [{ type: 'text', text }], structuredContent: { ...facts } };
        }
        throw new ContextError(
          'UNKNOWN_TOOL',
          `no tool named "${name}": use list_mcp_resources or read_mcp_resource`,
          {
            field: 'name',
            value: name,
          },
        );
      } catch (error) {
        return errorResult(error);
      }
    },
  };
}

// --- Internal helpers ---

function optionsSchemaParse(options: ExplorationToolsOptions): z.output<typeof optionsSchema> {
  return parseOptions(optionsSchema, options, 'options');
}

/** Tool arguments come from a model: the error names the argument, and the value only if it is short. */
function parseArguments<Schema extends z.ZodType>(schema: Schema, args: unknown): z.output<Schema> {
  const result = schema.safeParse(args ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const unknownKey = issue?.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
  const field = unknownKey ?? (issue?.path.map(String).join('.') || 'arguments');
  throw new ContextError('INVALID_TOOL_ARGUMENT', `argument "${field}": ${issue?.message ?? 'invalid'}`, {
    field,
  });
}

function errorResult(error: unknown): ToolResult {
  const failure = ContextError.isInstance(error)
    ? { code: error.code, message: error.message, ...(error.field !== undefined && { field: error.field }) }
    : { code: 'INTERNAL_ERROR', message: String(error) };
  return {
    content: [{ type: 'text', text: toSafeJson({ error: failure }) }],
    structuredContent: { error: failure },
    isError: true,
  };
}

function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}
