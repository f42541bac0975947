import type { z } from 'zod';
import { nearestKey } from '../config.js';
import { ContextError } from '../index.js';

/**
 * Validates a request's body or query with its contract schema. The error is INVALID_REQUEST
 * naming the field (`body.message.attachments.0.uri`); an unknown field is named itself, with
 * the known field it most likely meant as `hint`.
 */
export function parseRequest<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  where: 'body' | 'query',
): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0] as Issue | undefined;
  if (issue?.code === 'unrecognized_keys' && issue.keys?.[0] !== undefined) {
    const key = issue.keys[0];
    const field = [where, ...issue.path.map(String), key].join('.');
    const known = knownKeys(schema, issue.path);
    const suggestion = nearestKey(key, known);
    const error = new ContextError(
      'INVALID_REQUEST',
      `${field}: unknown field${suggestion ? `; did you mean "${suggestion}"?` : ''}${known.length > 0 ? ` (known: ${known.join(', ')})` : ''}`,
      { field, value: key },
    );
    if (suggestion !== undefined) hints.set(error, suggestion);
    throw error;
  }
  const field = [where, ...(issue?.path ?? []).map(String)].join('.');
  throw new ContextError('INVALID_REQUEST', `${field}: ${issue?.message ?? 'invalid'}`, { field });
}

/** The suggestion an INVALID_REQUEST carries for an unknown field, if any. */
export function hintOf(error: ContextError): string | undefined {
  return hints.get(error);
}

// --- Internal helpers ---

/** The nearest known field of each unknown-field error: not a ContextError field, so kept beside it. */
const hints = new WeakMap<ContextError, string>();

interface Issue {
  readonly code?: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly keys?: readonly string[];
}

/** The keys of the object schema at `path` inside `schema` (through arrays, optionals, refinements). */
function knownKeys(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  for (const key of path) {
    const object = unwrap(current);
    const shape = object?._zod?.def?.shape as Record<string, unknown> | undefined;
    if (shape && typeof key === 'string' && key in shape) current = shape[key];
    else if (object?._zod?.def?.element !== undefined) current = object._zod.def.element;
    else return [];
  }
  return Object.keys((unwrap(current)?._zod?.def?.shape as object | undefined) ?? {});
}

type Internals = {
  _zod?: { def?: { shape?: unknown; element?: unknown; innerType?: unknown; in?: unknown } };
};

/** Through optional, nullable, default and pipe wrappers to the schema that has the shape. */
function unwrap(schema: unknown): Internals | undefined {
  let current = schema as Internals | undefined;
  for (let depth = 0; depth < 8 && current?._zod?.def; depth++) {
    const def = current._zod.def;
    if (def.shape !== undefined || def.element !== undefined) return current;
    const inner = def.innerType ?? def.in;
    if (inner === undefined) return current;
    current = inner as Internals;
  }
  return current;
}
