const marker = Symbol.for('mcp-resource-context.error');

/** Every failure this library reports carries one of these codes. */
export type ContextErrorCode =
  | 'STORE_CORRUPT'
  | 'STORE_FOREIGN'
  | 'STORE_CLOSED'
  | 'STORE_UNAVAILABLE'
  | 'DEPENDENCY_MISSING'
  | 'INVALID_OPTION'
  | 'INVALID_ATTACHMENT'
  | 'INVALID_URI'
  | 'TEMPLATE_ARGUMENT_MISSING'
  | 'TEMPLATE_ARGUMENT_UNKNOWN'
  | 'CAPABILITY_MISSING'
  | 'SKILL_INVALID'
  | 'SKILL_MISMATCH'
  | 'UNKNOWN_SERVER'
  | 'UNKNOWN_PIPELINE'
  | 'UNKNOWN_AGENT'
  | 'CONNECT_FAILED'
  | 'SERVER_FAILED'
  | 'SESSION_CLOSED'
  | 'SESSIONS_EXHAUSTED'
  | 'PROTOCOL_ERROR'
  | 'INVALID_RESULT'
  | 'HTTP_ERROR'
  | 'RESOURCE_NOT_FOUND'
  | 'RESOURCE_ERROR_BODY'
  | 'INPUT_REQUIRED'
  | 'READ_TIMEOUT'
  | 'REQUEST_TIMEOUT'
  | 'TURN_DEADLINE'
  | 'ABORTED'
  | 'POLICY_DENIED'
  | 'UNSUPPORTED_CONTENT'
  | 'LIMIT_EXCEEDED'
  | 'PAGINATION_LOOP'
  | 'INTERNAL_ERROR'
  | 'INVALID_PROMPT_COMMAND'
  | 'INVALID_ARGUMENTS'
  | 'ENDPOINT_DENIED'
  | 'PROMPT_ARGUMENT_MISSING'
  | 'CREDENTIAL_MISSING'
  | 'CREDENTIAL_FILE_INVALID'
  | 'AUTH_REQUIRED'
  | 'AUTH_FAILED'
  | 'AUTH_RESOURCE_MISMATCH'
  | 'AUTH_STEP_UP_FAILED'
  | 'PRINCIPAL_REQUIRED'
  | 'INVALID_TOOL_ARGUMENT'
  | 'UNKNOWN_TOOL'
  // `mcp-context serve`: what an HTTP request got wrong, or why the service refused it.
  | 'INVALID_JSON'
  | 'INVALID_REQUEST'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'BODY_TOO_LARGE'
  | 'BODY_TIMEOUT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'UNKNOWN_ROUTE'
  | 'METHOD_NOT_ALLOWED'
  | 'PIN_NOT_FOUND'
  | 'SERVICE_UNAVAILABLE';

export interface ContextErrorDetails {
  /** The option, field or argument that was wrong. */
  readonly field?: string;
  /** The offending value (never a secret or resource content). */
  readonly value?: unknown;
  /** The bound the value crossed (a minimum or maximum), when one did. */
  readonly limit?: number;
  /** The server the operation addressed. */
  readonly server?: string;
  /** JSON-RPC error code, kept as the server sent it. */
  readonly rpcCode?: number;
  /** JSON-RPC error data, kept as the server sent it. */
  readonly rpcData?: unknown;
  /** The HTTP status a remote server answered with (HTTP_ERROR, CONNECT_FAILED). */
  readonly httpStatus?: number;
}

/**
 * The one error type of this library: a string code and the facts as fields.
 * `ContextError.isInstance` works across duplicate installs (it checks a global symbol,
 * not the prototype chain).
 */
export class ContextError extends Error implements ContextErrorDetails {
  readonly [marker] = true;
  override readonly name = 'ContextError';
  readonly code: ContextErrorCode;
  readonly field?: string;
  readonly value?: unknown;
  readonly limit?: number;
  readonly server?: string;
  readonly rpcCode?: number;
  readonly rpcData?: unknown;
  readonly httpStatus?: number;

  constructor(code: ContextErrorCode, message: string, details: ContextErrorDetails = {}, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.code = code;
    Object.assign(this, details);
  }

  static isInstance(error: unknown): error is ContextError {
    return typeof error === 'object' && error !== null && (error as { [marker]?: unknown })[marker] === true;
  }
}

/**
 * The first error in `error`'s cause chain (itself first) that `test` accepts, at most
 * `maxDepth` deep: the SDKs wrap what failed (a refused token request inside a failed connect,
 * our own refusal inside the transport's), and a chain from a server is not trusted to end.
 */
export function causeWhere(error: unknown, test: (error: Error) => boolean, maxDepth = 5): Error | undefined {
  let current = error;
  for (let depth = 0; depth < maxDepth && current instanceof Error; depth++) {
    if (test(current)) return current;
    current = current.cause;
  }
  return undefined;
}
