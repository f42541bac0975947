import type { z } from 'zod';
import { ContextError } from '../errors.js';
import { describeUnknownKey } from './nearest-key.js';
import { redactUrlUserinfo } from './redact-url-userinfo.js';

/**
 * Validates options once, at construction. The error names the option path and the bad
 * value, e.g. `mcpServers.docs.url: Invalid URL (got "not a url")`; an unknown key is named
 * itself, with the known key it most likely meant (`options.readTimeout: unknown key; did you
 * mean "readTimeoutMs"? …`). Every option schema is strict: nothing is silently dropped.
 */
export function parseOptions<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  what: string,
): z.output<Schema> {
  const result = schema.safeParse(input, { error: unknownKeyMessage });
  if (result.success) return result.data;
  const first = mostSpecific(result.error.issues[0]);
  // An unknown key is the field itself (`config.budget.truncaton`), not its parent object.
  const issue =
    first?.code === 'unrecognized_keys' && first.keys?.[0] !== undefined
      ? { ...first, path: [...first.path, first.keys[0]] }
      : first;
  const path = issue?.path.map(String).join('.') ?? '';
  // For an unknown key the fact is the key itself (its message names it and the nearest known one).
  const unknownKey = issue !== first || first?.params?.unknownKey === true;
  const found = unknownKey ? issue?.path.at(-1) : valueAt(input, issue?.path ?? []);
  // A bad server URL is echoed without its userinfo: that part is a credential.
  const value = typeof found === 'string' ? redactUrlUserinfo(found).value : found;
  const got =
    unknownKey || value === undefined || typeof value === 'function'
      ? ''
      : ` (got ${redactUrlUserinfo(safeJson(value)).value})`;
  const field = path ? `${what}.${path}` : what;
  // A schema's own rule may name its bound (see boundaryTextSchema): the error carries it as `limit`.
  const limit = issue?.params?.limit;
  throw new ContextError('INVALID_OPTION', `${field}: ${issue?.message ?? 'invalid'}${got}`, {
    field,
    value,
    ...(typeof limit === 'number' && { limit }),
  });
}

// --- Internal helpers ---

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code?: string;
  readonly keys?: readonly string[];
  /** Set by schemas that report an unknown key as a custom issue (server entries). */
  readonly params?: { readonly unknownKey?: boolean; readonly limit?: unknown };
  readonly errors?: readonly (readonly Issue[])[];
}

/**
 * "Invalid input" for a union names no field: look into the branch that got furthest (its
 * first issue has the longest path) and report that issue, under the union's own path.
 */
function mostSpecific(issue: Issue | undefined): Issue | undefined {
  if (issue?.code !== 'invalid_union' || !issue.errors?.length) return issue;
  const candidates = issue.errors
    .map((branch) => mostSpecific(branch[0]))
    .filter((item) => item !== undefined);
  const deepest = Math.max(0, ...candidates.map((item) => item.path.length));
  const winners = candidates.filter((item) => item.path.length === deepest);
  // A tie (say, neither pipelineId nor conversationId given) is the union's own issue.
  if (deepest === 0 || winners.length !== 1) return issue;
  const [best] = winners as [Issue];
  return { ...best, path: [...issue.path, ...best.path] };
}

/** The error map for strict objects: the known keys come from the object schema itself. */
function unknownKeyMessage(issue: {
  code?: string;
  keys?: readonly string[];
  inst?: unknown;
}): string | undefined {
  if (issue.code !== 'unrecognized_keys') return undefined;
  const shape = (issue.inst as { _zod?: { def?: { shape?: object } } } | undefined)?._zod?.def?.shape;
  return describeUnknownKey(issue.keys?.[0] ?? '', Object.keys(shape ?? {}));
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current: unknown = input;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function safeJson(value: unknown): string {
  try {
    const text = JSON.stringify(value);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    // Too deep or cyclic for JSON; String() would recurse into a nested array just the same.
    if (Array.isArray(value)) return 'an array';
    return typeof value === 'object' && value !== null ? 'an object' : String(value);
  }
}
