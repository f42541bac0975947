import { z } from 'zod';
import { ContextError } from '../errors.js';
import { boundaryTextSchema, requireBoundaryText } from '../options/boundary-text.js';
import { parseOptions } from '../options/parse-options.js';
import type { MessageAttachment, PinInput, Scope } from '../types.js';

// One rule for every id and URI a store is given (see boundary-text.ts): a store never meets a
// value it cannot hold, or two values it would hold as one.
const identifier = boundaryTextSchema('id');
const uri = boundaryTextSchema('uri');

const scopeSchema = z.union([
  z.strictObject({ pipelineId: identifier }),
  z.strictObject({ conversationId: identifier }),
]);

// One object with optional uri/template rather than a union: errors then name the exact field.
const messageAttachmentSchema = z
  .strictObject({
    server: identifier,
    uri: uri.optional(),
    template: boundaryTextSchema('template').optional(),
    // An argument's value becomes part of the URI: the URI's rule holds for it.
    arguments: z.record(identifier, z.union([uri, z.array(uri)])).optional(),
    priority: z.number().int().min(-1000).max(1000).optional(),
    maxTokens: z.number().int().positive().optional(),
    bypassCache: z.boolean().optional(),
    ignoreAudience: z.boolean().optional(),
    skill: z.boolean().optional(),
  })
  .superRefine((value, context) => {
    if ((value.uri === undefined) === (value.template === undefined)) {
      context.addIssue({ code: 'custom', message: 'give exactly one of uri or template', path: [] });
    } else if (value.uri !== undefined && value.arguments !== undefined) {
      context.addIssue({
        code: 'custom',
        message: 'arguments go with a template, not a uri',
        path: ['arguments'],
      });
    }
  })
  .transform((value) =>
    value.template !== undefined ? { ...value, arguments: value.arguments ?? {} } : value,
  );

const pinInputSchema = z
  .object({ scope: scopeSchema })
  .passthrough()
  .transform((value, context) => {
    const { scope, ...target } = value;
    const parsed = messageAttachmentSchema.safeParse(target);
    if (parsed.success) return { ...parsed.data, scope };
    for (const issue of parsed.error.issues) context.addIssue({ ...issue, code: 'custom', path: issue.path });
    return z.NEVER;
  });

/** Validates what a host hands to `pin()`; names the bad field. */
export function parsePinInput(input: unknown): PinInput {
  return parseWith(pinInputSchema, input, 'pin') as PinInput;
}

/**
 * Validates the scope a store is asked to list: INVALID_OPTION naming the field (a pin's scope is
 * part of the pin, refused by `parsePinInput` as INVALID_ATTACHMENT).
 */
export function parseScope(scope: unknown): Scope {
  // The usual scope without zod (a tenth of its cost): every turn lists one or two.
  if (typeof scope === 'object' && scope !== null) {
    const keys = Object.keys(scope);
    const key = keys[0];
    if (keys.length === 1 && (key === 'pipelineId' || key === 'conversationId')) {
      requireBoundaryText((scope as Record<string, unknown>)[key], 'id', `scope.${key}`, 'INVALID_OPTION');
      return scope as Scope;
    }
  }
  return parseOptions(scopeSchema, scope, 'scope');
}

/** Validates the id a store is asked to unpin (an id by the rule every id follows). */
export function parsePinId(id: unknown): string {
  return requireBoundaryText(id, 'id', 'id', 'INVALID_OPTION');
}

/** Validates how many pins `listAll` may answer. */
export function parseListLimit(limit: unknown): number {
  return parseOptions(z.number().int().nonnegative(), limit, 'limit');
}

/** Validates one attachment that arrived with a message. */
export function parseMessageAttachment(input: unknown, index: number): MessageAttachment {
  return parseWith(messageAttachmentSchema, input, `message.attachments[${index}]`) as MessageAttachment;
}

// --- Internal helpers ---

function parseWith(schema: z.ZodType, input: unknown, what: string): unknown {
  try {
    return parseOptions(schema, input, what);
  } catch (error) {
    // Same message and facts, but the code says an attachment was wrong, not an option.
    if (!ContextError.isInstance(error)) throw error;
    throw new ContextError('INVALID_ATTACHMENT', error.message, {
      field: error.field,
      value: error.value,
      ...(error.limit !== undefined && { limit: error.limit }),
    });
  }
}
