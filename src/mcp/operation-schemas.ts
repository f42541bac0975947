import { z } from 'zod';
import { boundaryTextSchema } from '../options/boundary-text.js';

// Ids by the rule of every id at the API boundary (see boundary-text.ts).
const identifier = boundaryTextSchema('id');

/**
 * Inputs of the registry's operations, validated on every call: they come from hosts,
 * tools and slash commands, not only from typed code. (Results are validated by the SDK
 * against the MCP schema before they reach us.)
 */
export const callOptionsSchema = z.object({
  signal: z.instanceof(AbortSignal).optional(),
  /** Per-call timeout in milliseconds; defaults to the server's, then the registry's. */
  timeoutMs: z.number().int().positive().optional(),
  /** Who the call is for, in the audit log; absent: the operator. `PolicyBoundServers` sets its principal. */
  actor: z.strictObject({ pipelineId: identifier, agentId: identifier.optional() }).optional(),
  /**
   * The host's user the call is for. A per-user server (`auth.perUser`) needs it: each principal
   * has its own session and credentials there. A shared server ignores it.
   */
  principal: identifier.optional(),
});

export const listOptionsSchema = callOptionsSchema.extend({
  /** Continue a listing where the server's `nextCursor` left off. */
  cursor: z.string().optional(),
  /** Follow every cursor (bounded by `maxPages` and `maxItems`). */
  all: z.boolean().optional(),
});

export const readOptionsSchema = callOptionsSchema.extend({
  /** Most content bytes kept from this read; defaults to the registry's `maxReadBytes`. */
  maxBytes: z.number().int().positive().optional(),
});

export const uriSchema = z.string().min(1);
export const nameSchema = z.string().min(1);
export const promptArgumentsSchema = z.record(z.string(), z.string());
export const toolArgumentsSchema = z.record(z.string(), z.unknown());

export type CallOptions = z.input<typeof callOptionsSchema>;
export type ListOptions = z.input<typeof listOptionsSchema>;
export type ReadOptions = z.input<typeof readOptionsSchema>;

/**
 * What `complete` asks for (MCP spec, server/utilities/completion): the value typed so far for
 * one argument of a resource template or a prompt, with the arguments already chosen as context.
 */
export const completeRequestSchema = z
  .strictObject({
    template: z.string().min(1).optional(),
    prompt: z.string().min(1).optional(),
    argument: z.string().min(1),
    value: z.string().default(''),
    context: z.record(z.string(), z.string()).optional(),
  })
  .refine((request) => (request.template === undefined) !== (request.prompt === undefined), {
    message: 'give exactly one of template or prompt',
    path: ['template'],
  });

export type CompleteRequest = z.input<typeof completeRequestSchema>;
