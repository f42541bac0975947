import { z } from 'zod';
import { named } from './contract-registry.js';

/**
 * What clients send to `mcp-context serve`. These schemas validate every request and generate
 * the OpenAPI document (build-openapi-document.ts): the contract is written once. Every object
 * is strict, so a misspelt field is a 400 naming it and the field it most likely meant.
 */

/** Pipeline, agent, turn and principal ids: what every store can hold. */
const identifier = z.string().min(1).max(256);

/**
 * With tenants configured, a conversation id is stored under its tenant (`tenant:id`) so that no
 * tenant can reach another's conversations: that prefix takes up to 65 of the stores' 256.
 */
const conversationId = z.string().min(1).max(190);

export const formats = ['text', 'openai', 'anthropic'] as const;

const attachmentOptions = {
  /** Rank among attachments of the same scope when the budget is short (higher first). */
  priority: z.number().int().min(-1000).max(1000).optional(),
  /** At most this many tokens for this attachment, its frame included. */
  maxTokens: z.number().int().positive().optional(),
  bypassCache: z.boolean().optional(),
  ignoreAudience: z.boolean().optional(),
  skill: z.boolean().optional(),
};

const targetFields = {
  server: z.string().min(1).max(256),
  /** A concrete resource URI; or give `template` and `arguments`. */
  uri: z.string().min(1).max(8192).optional(),
  /** An RFC 6570 resource template, expanded with `arguments`. */
  template: z.string().min(1).max(8192).optional(),
  arguments: z.record(z.string(), z.union([z.string(), z.array(z.string())])).optional(),
};

function exactlyOneTarget(target: { uri?: string; template?: string; arguments?: unknown }): boolean {
  return (target.uri === undefined) !== (target.template === undefined);
}

const oneTarget = {
  message: 'give exactly one of uri or template (with arguments)',
  path: ['uri'],
};

export const messageAttachmentSchema = named(
  z.strictObject({ ...targetFields, ...attachmentOptions }).refine(exactlyOneTarget, oneTarget),
  {
    id: 'MessageAttachment',
    description: 'A resource attached to this message: `uri`, or `template` with `arguments`.',
  },
);

export const scopeSchema = named(
  z
    .strictObject({ pipelineId: identifier.optional(), conversationId: conversationId.optional() })
    .refine((scope) => (scope.pipelineId === undefined) !== (scope.conversationId === undefined), {
      message: 'give exactly one of pipelineId or conversationId',
      path: ['pipelineId'],
    }),
  { id: 'Scope', description: 'Where a pin lives: exactly one of `pipelineId` or `conversationId`.' },
);

const budgetSchema = z.strictObject({
  maxTokens: z.number().int().positive().optional(),
  minTokens: z.number().int().min(0).optional(),
  strategy: z.enum(['fair', 'priority']).optional(),
  truncation: z.enum(['head', 'tail', 'head-tail', 'relevant']).optional(),
  lineAware: z.boolean().optional(),
  safetyMargin: z.number().min(0).lt(1).optional(),
  reserve: z
    .strictObject({
      message: z.number().int().min(0).optional(),
      conversation: z.number().int().min(0).optional(),
      pipeline: z.number().int().min(0).optional(),
    })
    .optional(),
});

export const provideRequestSchema = named(
  z.strictObject({
    pipelineId: identifier,
    agentId: identifier.optional(),
    conversationId: conversationId.optional(),
    /** The host's user: per-user (OAuth) servers read with this principal's session. */
    principal: identifier.optional(),
    turnId: identifier.optional(),
    message: z
      .strictObject({
        /** The user's words: `relevant` truncation ranks chunks by them. */
        text: z
          .string()
          .max(256 * 1024)
          .optional(),
        attachments: z.array(messageAttachmentSchema).max(256).optional(),
      })
      .optional(),
    model: z
      .strictObject({
        id: z.string().min(1).max(256).optional(),
        images: z.boolean().optional(),
        audio: z.boolean().optional(),
        pdf: z.boolean().optional(),
      })
      .optional(),
    /** This turn's override of the configured budget: models differ. */
    budget: budgetSchema.optional(),
    bypassCache: z.boolean().optional(),
    /** Rendered forms to return beside the blocks: `text`, `openai` messages, `anthropic` content (with cache_control). */
    format: z.array(z.enum(formats)).max(formats.length).optional(),
  }),
  {
    id: 'ProvideRequest',
    description: 'One turn: what the next model call is about to receive context for.',
  },
);

/** `?pipelineId=` or `?conversationId=`: the scope whose pins are listed or changed. */
export const scopeQuerySchema = scopeSchema;

export const pinAddRequestSchema = named(
  z
    .strictObject({ scope: scopeSchema, ...targetFields, ...attachmentOptions })
    .refine(exactlyOneTarget, oneTarget),
  {
    id: 'PinAddRequest',
    description:
      'A pin: the same target pinned again in the same scope updates that pin in place (same id, new options).',
  },
);

export const pinUpdateRequestSchema = named(
  z.strictObject({
    scope: scopeSchema,
    /** `null` removes it. */
    priority: z.number().int().min(-1000).max(1000).nullable().optional(),
    /** `null` removes it. */
    maxTokens: z.number().int().positive().nullable().optional(),
    bypassCache: z.boolean().optional(),
    ignoreAudience: z.boolean().optional(),
    skill: z.boolean().optional(),
  }),
  { id: 'PinUpdateRequest', description: "A pin's options changed; its target stays." },
);

const principalFields = {
  pipelineId: identifier,
  agentId: identifier.optional(),
  principal: identifier.optional(),
};

export const serversQuerySchema = z.strictObject({
  pipelineId: identifier,
  agentId: identifier.optional(),
});

export const listingQuerySchema = z.strictObject({
  ...principalFields,
  /** The page after this cursor (a listing's `nextCursor`). */
  cursor: z.string().min(1).max(8192).optional(),
  /** `true`: every page (bounded by the registry's maxPages and maxItems). */
  all: z.enum(['true', 'false']).optional(),
});

export const readRequestSchema = named(
  z.strictObject({ ...principalFields, uri: z.string().min(1).max(8192) }),
  { id: 'ReadRequest' },
);

export const promptRequestSchema = named(
  z.strictObject({ ...principalFields, arguments: z.record(z.string(), z.string()).optional() }),
  { id: 'PromptRequest' },
);

export const completeRequestSchema = named(
  z
    .strictObject({
      ...principalFields,
      /** The resource template whose argument is being typed; or `prompt`. */
      template: z.string().min(1).max(8192).optional(),
      prompt: z.string().min(1).max(256).optional(),
      argument: z.string().min(1).max(256),
      value: z.string().max(8192).optional(),
      context: z.record(z.string(), z.string()).optional(),
    })
    .refine((request) => (request.template === undefined) !== (request.prompt === undefined), {
      message: 'give exactly one of template or prompt',
      path: ['template'],
    }),
  { id: 'CompleteRequest' },
);

export const tracesQuerySchema = z.strictObject({
  /** Only this pipeline's turns; default: every pipeline the key may use. */
  pipelineId: identifier.optional(),
});

export const noQuerySchema = z.strictObject({});
