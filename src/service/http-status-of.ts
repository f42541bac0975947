import type { ContextErrorCode } from '../index.js';

/**
 * The HTTP status of a failed request, by its error code. Bad input is the client's (4xx); a
 * server, session or store that fails is a gateway's failure (502, 504, 503). Inside a turn no
 * attachment's failure gets here: those are fates in the trace of a 200.
 */
export function httpStatusOf(code: ContextErrorCode): number {
  return statuses[code] ?? 500;
}

// --- Internal helpers ---

const statuses: Partial<Record<ContextErrorCode, number>> = {
  INVALID_JSON: 400,
  INVALID_REQUEST: 400,
  INVALID_OPTION: 400,
  INVALID_ATTACHMENT: 400,
  INVALID_URI: 400,
  TEMPLATE_ARGUMENT_MISSING: 400,
  TEMPLATE_ARGUMENT_UNKNOWN: 400,
  INVALID_ARGUMENTS: 400,
  INVALID_PROMPT_COMMAND: 400,
  PROMPT_ARGUMENT_MISSING: 400,
  PRINCIPAL_REQUIRED: 400,
  LIMIT_EXCEEDED: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  POLICY_DENIED: 403,
  UNKNOWN_PIPELINE: 404,
  UNKNOWN_AGENT: 404,
  UNKNOWN_SERVER: 404,
  UNKNOWN_ROUTE: 404,
  PIN_NOT_FOUND: 404,
  RESOURCE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  BODY_TIMEOUT: 408,
  BODY_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  CAPABILITY_MISSING: 422,
  // The MCP server's side: what the service stands in front of failed.
  CONNECT_FAILED: 502,
  SERVER_FAILED: 502,
  SESSION_CLOSED: 502,
  PROTOCOL_ERROR: 502,
  INVALID_RESULT: 502,
  HTTP_ERROR: 502,
  RESOURCE_ERROR_BODY: 502,
  INPUT_REQUIRED: 502,
  ENDPOINT_DENIED: 502,
  AUTH_REQUIRED: 502,
  AUTH_FAILED: 502,
  AUTH_RESOURCE_MISMATCH: 502,
  AUTH_STEP_UP_FAILED: 502,
  CREDENTIAL_MISSING: 502,
  PAGINATION_LOOP: 502,
  UNSUPPORTED_CONTENT: 502,
  READ_TIMEOUT: 504,
  REQUEST_TIMEOUT: 504,
  TURN_DEADLINE: 504,
  STORE_UNAVAILABLE: 503,
  STORE_CLOSED: 503,
  SERVICE_UNAVAILABLE: 503,
};
