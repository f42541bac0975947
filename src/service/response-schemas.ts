import { z } from 'zod';
import { named } from './contract-registry.js';

/**
 * What `mcp-context serve` answers. The library's result types, written as schemas for the
 * OpenAPI document; the service tests validate real responses against them, so the document
 * cannot drift from what is sent. Library records are strict (a new field must be added here);
 * MCP results a server sent are open (servers add fields the spec allows).
 */

const scopeKind = z.enum(['message', 'conversation', 'pipeline']);
const errorFacts = z.strictObject({ code: z.string(), message: z.string() });

export const errorResponseSchema = named(
  z.strictObject({
    error: z.strictObject({
      /** One of the library's error codes (docs/errors.md): INVALID_REQUEST, UNKNOWN_PIPELINE, UNAUTHENTICATED … */
      code: z.string(),
      message: z.string(),
      /** The request field that was wrong (`body.message.attachments.0.uri`). */
      field: z.string().optional(),
      value: z.unknown().optional(),
      limit: z.number().optional(),
      server: z.string().optional(),
      /** For an unknown field: the known field it most likely meant. */
      hint: z.string().optional(),
    }),
  }),
  { id: 'ErrorResponse', description: 'Every error: a code, a message, and the facts.' },
);

const mediaPartSchema = z.strictObject({
  kind: z.enum(['image', 'audio', 'document']),
  uri: z.string(),
  mimeType: z.string(),
  data: z.string(),
  bytes: z.number().int(),
});

const provenanceSchema = z.strictObject({
  scope: scopeKind,
  server: z.string(),
  uri: z.string(),
  mimeType: z.string(),
  sha256: z.string(),
  truncated: z.boolean(),
  originalTokens: z.number().int().optional(),
  originalTokensEstimated: z.boolean().optional(),
  lastModified: z.string().optional(),
  skill: z.strictObject({ name: z.string(), description: z.string() }).optional(),
});

export const contextBlockSchema = named(
  z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('preamble'), text: z.string() }),
    z.strictObject({ kind: z.literal('instructions'), text: z.string() }),
    z.strictObject({
      kind: z.literal('resource'),
      text: z.string(),
      provenance: provenanceSchema,
      parts: z.array(mediaPartSchema).optional(),
    }),
  ]),
  {
    id: 'ContextBlock',
    description: "A framed piece of context; the blocks' texts concatenated are the plain-text rendering.",
  },
);

const traceEntrySchema = named(
  z.strictObject({
    scope: scopeKind,
    attachmentId: z.string().optional(),
    server: z.string(),
    uri: z.string(),
    template: z.string().optional(),
    mimeType: z.string().optional(),
    lastModified: z.string().optional(),
    skillName: z.string().optional(),
    status: z.enum([
      'injected',
      'omitted',
      'truncated',
      'omitted-budget',
      'denied',
      'error',
      'timeout',
      'input-required',
      'stale',
      'unsupported',
    ]),
    tokens: z.number().int(),
    originalTokens: z.number().int(),
    originalTokensEstimated: z.boolean().optional(),
    notes: z.array(z.string()).optional(),
    bytes: z.number().int(),
    sha256: z.string().optional(),
    cache: z.enum(['hit', 'miss', 'stale', 'bypass']),
    sharedCache: z.enum(['hit', 'miss', 'unavailable', 'wait-timeout']).optional(),
    durationMs: z.number(),
    reason: z.string().optional(),
    error: errorFacts.optional(),
    superseded: z.array(z.strictObject({ scope: scopeKind, attachmentId: z.string().optional() })),
    omittedContents: z.array(
      z.strictObject({ uri: z.string(), mimeType: z.string(), bytes: z.number().int(), reason: z.string() }),
    ),
    change: z.enum(['new', 'changed', 'unchanged']).optional(),
  }),
  { id: 'TraceEntry', description: "One attachment's fate in a turn." },
);

export const injectionTraceSchema = named(
  z.strictObject({
    turnId: z.string(),
    pipelineId: z.string(),
    conversationId: z.string().optional(),
    startedAt: z.string(),
    durationMs: z.number(),
    budget: z.strictObject({
      maxTokens: z.number().int(),
      usedTokens: z.number().int(),
      tokenizer: z.string(),
      exact: z.boolean(),
      margin: z.number(),
    }),
    entries: z.array(traceEntrySchema),
    instructions: z
      .array(
        z.strictObject({
          server: z.string(),
          tokens: z.number().int(),
          truncated: z.boolean(),
          status: z.enum(['included', 'truncated', 'omitted-budget', 'none', 'error']),
          error: errorFacts.optional(),
        }),
      )
      .optional(),
    servers: z
      .array(
        z.strictObject({
          server: z.string(),
          protocolVersion: z.string(),
          pinUpdates: z.enum(['notifications', 'ttl']).optional(),
        }),
      )
      .optional(),
  }),
  { id: 'InjectionTrace', description: 'One per turn: every attachment with its fate.' },
);

/** An MCP content item or message as a server sent it: open, the spec lets servers add fields. */
const mcpObject = (shape: z.ZodRawShape) => z.looseObject(shape);

export const provideResponseSchema = named(
  z.strictObject({
    blocks: z.array(contextBlockSchema),
    trace: injectionTraceSchema,
    /** The forms `format` asked for. */
    rendered: z
      .strictObject({
        text: z.string().optional(),
        /** OpenAI chat messages (toOpenAIMessages). */
        openai: z.array(mcpObject({ role: z.string() })).optional(),
        /** Anthropic content blocks with cache_control on the last (toAnthropicContent). */
        anthropic: z.array(mcpObject({ type: z.string() })).optional(),
      })
      .optional(),
  }),
  { id: 'ProvideResponse' },
);

export const pinSchema = named(
  z.strictObject({
    id: z.string(),
    addedAt: z.string(),
    /** New on every write of the pin (an etag); with `id`, one state of one pin. */
    version: z.string().optional(),
    scope: z.union([
      z.strictObject({ pipelineId: z.string() }),
      z.strictObject({ conversationId: z.string() }),
    ]),
    server: z.string(),
    uri: z.string().optional(),
    template: z.string().optional(),
    arguments: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional(),
    priority: z.number().int().optional(),
    maxTokens: z.number().int().optional(),
    bypassCache: z.boolean().optional(),
    ignoreAudience: z.boolean().optional(),
    skill: z.boolean().optional(),
  }),
  { id: 'Pin', description: 'A stored pin.' },
);

export const pinResponseSchema = named(z.strictObject({ pin: pinSchema }), { id: 'PinResponse' });
export const pinListResponseSchema = named(z.strictObject({ pins: z.array(pinSchema) }), {
  id: 'PinListResponse',
});
export const pinRemovedResponseSchema = named(z.strictObject({ removed: z.literal(true), id: z.string() }), {
  id: 'PinRemovedResponse',
});

const serverStatusSchema = named(
  z.strictObject({
    server: z.string(),
    configuredTransport: z.string(),
    transport: z.string().optional(),
    state: z.enum(['idle', 'connecting', 'connected', 'disconnected', 'error', 'failed', 'closed']),
    lastError: z.strictObject({ code: z.string(), message: z.string(), at: z.string() }).optional(),
    lastUsedAt: z.string().optional(),
    connectedAt: z.string().optional(),
    serverInfo: mcpObject({ name: z.string(), version: z.string() }).optional(),
    capabilities: mcpObject({}).optional(),
    instructions: z.string().optional(),
    resourceCount: z.number().int().optional(),
    promptCount: z.number().int().optional(),
    reconnectAttempts: z.number().int(),
    consecutiveFailures: z.number().int(),
    nextReconnectAt: z.string().optional(),
  }),
  { id: 'ServerStatus', description: 'One MCP server as the service sees it now (no credentials).' },
);

export const serversResponseSchema = named(z.strictObject({ servers: z.array(serverStatusSchema) }), {
  id: 'ServersResponse',
});

const nextCursor = z.string().optional();

export const resourcesResponseSchema = named(
  z.strictObject({ resources: z.array(mcpObject({ uri: z.string(), name: z.string() })), nextCursor }),
  { id: 'ResourcesResponse', description: 'The resources this pipeline may see (MCP Resource objects).' },
);

export const templatesResponseSchema = named(
  z.strictObject({
    resourceTemplates: z.array(mcpObject({ uriTemplate: z.string(), name: z.string() })),
    nextCursor,
  }),
  { id: 'TemplatesResponse' },
);

export const readResponseSchema = named(
  mcpObject({
    contents: z.array(mcpObject({ uri: z.string() })),
    /** Present when the byte cap cut the content. */
    truncation: mcpObject({
      maxBytes: z.number(),
      originalBytes: z.number(),
      keptBytes: z.number(),
    }).optional(),
    redactions: z.number().int().optional(),
  }),
  { id: 'ReadResponse', description: 'The MCP read result, capped and with credentials redacted.' },
);

export const promptsResponseSchema = named(
  z.strictObject({ prompts: z.array(mcpObject({ name: z.string() })), nextCursor }),
  { id: 'PromptsResponse' },
);

export const promptResponseSchema = named(
  mcpObject({
    description: z.string().optional(),
    messages: z.array(
      mcpObject({ role: z.enum(['user', 'assistant']), content: mcpObject({ type: z.string() }) }),
    ),
  }),
  { id: 'PromptResponse', description: 'The MCP prompts/get result.' },
);

export const completionResponseSchema = named(
  z.strictObject({
    values: z.array(z.string()),
    total: z.number().int().optional(),
    hasMore: z.boolean().optional(),
  }),
  { id: 'CompletionResponse' },
);

export const healthResponseSchema = named(z.strictObject({ status: z.literal('ok') }), {
  id: 'HealthResponse',
});

export const readyResponseSchema = named(
  z.strictObject({
    status: z.enum(['ready', 'not-ready']),
    /** Each check: `ok`, or why not. */
    checks: z.strictObject({
      store: z.string(),
      sharedCache: z.string().optional(),
      draining: z.boolean(),
      /** Each server's connection state; a server that is down does not make the service unready. */
      servers: z.record(z.string(), z.string()),
    }),
  }),
  { id: 'ReadyResponse' },
);
