import type { z } from 'zod';
import { ContextError } from '../errors.js';

/**
 * Validates options once, at construction. The error names the option path and the bad
 * value, e.g. `mcpServers.docs.url: Invalid URL (got "not a url")`.
 */
export function parseOptions<Schema extends z.ZodType>(
  schema: Schema,
  input: unknown,
  what: string,
): z.output<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = mostSpecific(result.error.issues[0]);
  const path = issue?.path.map(String).join('.') ?? '';
  const value = valueAt(input, issue?.path ?? []);
  const got = value === undefined || typeof value === 'function' ? '' : ` (got ${safeJson(value)})`;
  const field = path ? `${what}.${path}` : what;
  throw new ContextError('INVALID_OPTION', `${field}: ${issue?.message ?? 'invalid'}${got}`, {
    field,
    value,
  });
}

// --- Internal helpers ---

interface Issue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code?: string;
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
    return String(value);
  }
}
