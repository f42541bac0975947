import { type ElicitRequest, type ElicitResult, specTypeSchemas } from '@modelcontextprotocol/client';
import { ContextError } from '../errors.js';
import type { InputAnswerer } from './read-answering-input.js';
import { oneLine } from './summarize-failure.js';

/** A server asks the user for input (MCP spec, client/elicitation), on behalf of a principal. */
export interface ElicitationRequest {
  readonly server: string;
  readonly principal?: string;
  /** The request as the server sent it (form mode): `message` and `requestedSchema`. */
  readonly params: ElicitRequest['params'];
  /** Aborted when the server cancels the request or its session ends: stop asking the user. */
  readonly signal: AbortSignal;
}

/** The user's answer (the SDK's type): `{ action: 'accept', content }`, `{ action: 'decline' }` or `{ action: 'cancel' }`. */
export type { ElicitResult };

/**
 * Answers a server's elicitation. A rejection reaches the server as a JSON-RPC error; form
 * defaults fill what an accepted `content` leaves out (SEP-1034).
 */
export type ElicitationHandler = (request: ElicitationRequest) => Promise<ElicitResult>;

/**
 * The host's handler as the answerer of a 2026-07-28 read's embedded elicitations, checked both
 * ways as the SDK checks a 2025 server's `elicitation/create`: the server's params against the
 * MCP schema (INVALID_RESULT, field `inputRequests`), the handler's answer against ElicitResult
 * (INVALID_OPTION, field `elicitation`); an accepted form gets its defaults.
 */
export function answerElicitation(
  handler: ElicitationHandler,
  server: string,
  principal: string | undefined,
): InputAnswerer {
  return async (params, signal) => {
    const asked = specTypeSchemas.ElicitRequestParams['~standard'].validate(params);
    if (asked.issues !== undefined) {
      throw new ContextError(
        'INVALID_RESULT',
        `server "${server}" asked for input with an elicitation that is not one: ${oneLine(asked.issues[0]?.message ?? 'invalid', 200)}`,
        { server, field: 'inputRequests' },
      );
    }
    const answer = await handler({
      server,
      ...(principal !== undefined && { principal }),
      params: asked.value,
      signal: signal ?? new AbortController().signal,
    });
    const checked = specTypeSchemas.ElicitResult['~standard'].validate(answer);
    if (checked.issues !== undefined) {
      throw new ContextError(
        'INVALID_OPTION',
        `the elicitation handler's answer to server "${server}" is not an ElicitResult: ${oneLine(checked.issues[0]?.message ?? 'invalid', 200)}`,
        { field: 'elicitation' },
      );
    }
    return withDefaults(checked.value, asked.value);
  };
}

// --- Internal helpers ---

/** An accepted form's content with the requested schema's defaults where it left a field out. */
function withDefaults(answer: ElicitResult, params: ElicitRequest['params']): ElicitResult {
  if (answer.action !== 'accept' || answer.content === undefined || params.mode === 'url') return answer;
  const properties = (params as { requestedSchema?: { properties?: Record<string, { default?: unknown }> } })
    .requestedSchema?.properties;
  if (properties === undefined) return answer;
  const content: Record<string, unknown> = { ...answer.content };
  for (const [field, schema] of Object.entries(properties)) {
    if (content[field] === undefined && Object.hasOwn(schema, 'default')) content[field] = schema.default;
  }
  return { ...answer, content: content as ElicitResult['content'] };
}
