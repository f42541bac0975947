import { ContextError, type ContextErrorCode } from '../errors.js';
import { responseTooLargeCode } from './cap-response-body.js';
import { type AskedInput, InputRequiredError } from './input-required-error.js';
import { RpcError, rpcErrorCodes } from './rpc-error.js';
import { oneLine, summarizeFailure } from './summarize-failure.js';

/**
 * MCP 2026-07-28: a server that needs input the client's capabilities do not offer (an
 * elicitation without a handler, sampling) answers -32021 with `data.requiredCapabilities`.
 */
const MISSING_CLIENT_CAPABILITY = -32021;

export interface OperationContext {
  readonly server: string;
  readonly operation: string;
  readonly signal?: AbortSignal;
}

/**
 * Turns whatever an SDK call threw into a ContextError that keeps the JSON-RPC code and data.
 * A failure stays a failure: nothing here produces a result. The message is one short line
 * naming the operation, the server and what was wrong (`summarizeFailure`): a result that fails
 * the MCP schema is INVALID_RESULT, a blob that is not base64 UNSUPPORTED_CONTENT, an HTTP error
 * status or a non-JSON-RPC reply HTTP_ERROR, a closed transport SESSION_CLOSED.
 */
export function toContextError(error: unknown, context: OperationContext): ContextError {
  if (ContextError.isInstance(error)) return error;
  const where = `${context.operation} on server "${context.server}"`;
  // An aborted request rejects with the signal's reason, or with the SDK's timeout code.
  if (context.signal?.aborted) {
    return new ContextError('ABORTED', `${where} was aborted`, { server: context.server }, error);
  }
  if (error instanceof InputRequiredError) return inputRequired(error, where, context.server);
  if (error instanceof RpcError && error.code === MISSING_CLIENT_CAPABILITY) {
    return missingCapability(error, where, context.server);
  }
  if (error instanceof RpcError) {
    const code = codeFor(error.code, context);
    return new ContextError(
      code,
      `${where} failed: ${oneLine(withoutRepeatedPrefix(error.message), 200)}`,
      {
        server: context.server,
        rpcCode: error.code,
        rpcData: error.data,
        ...(code === 'LIMIT_EXCEEDED' && { field: 'maxResponseBytes' }),
      },
      error,
    );
  }
  const summary = summarizeFailure(error, context.operation);
  const code = summary.code === 'MCP_ERROR' ? 'PROTOCOL_ERROR' : summary.code;
  const details = {
    server: context.server,
    ...(summary.httpStatus !== undefined && { httpStatus: summary.httpStatus }),
  };
  return new ContextError(code, `${where} failed: ${summary.reason}`, details, error);
}

// --- Internal helpers ---

/** Why the input was not given, as the end of INPUT_REQUIRED's message. */
function whyUnanswered(error: InputRequiredError): string {
  switch (error.reason) {
    case 'no-handler':
      return 'no elicitation handler is registered (registry option elicitation)';
    case 'unsupported':
      return 'only elicitations are answered';
    case 'too-many':
      return 'it asked for more than ten at once';
    case 'rounds':
      return `it was still asking after ${error.rounds} rounds of answers`;
  }
}
/** INPUT_REQUIRED: what the server asked for (`value`, field `inputRequests`) and why it was not given. */
function inputRequired(error: InputRequiredError, where: string, server: string): ContextError {
  const asked = error.asked.map(describeAsked).join('; ') || 'nothing named (requestState only)';
  return new ContextError(
    'INPUT_REQUIRED',
    `${where} needs input the host did not give: ${asked}; ${whyUnanswered(error)}`,
    { server, field: 'inputRequests', value: error.asked },
    error,
  );
}

/** INPUT_REQUIRED for -32021: the capabilities it names (`value`, field `requiredCapabilities`). */
function missingCapability(error: RpcError, where: string, server: string): ContextError {
  const required = (error.data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  const names =
    typeof required === 'object' && required !== null
      ? Object.keys(required)
          .slice(0, 5)
          .map((name) => oneLine(name, 40))
      : [];
  const hint = names.includes('elicitation') ? ' (registry option elicitation)' : '';
  return new ContextError(
    'INPUT_REQUIRED',
    `${where} needs input the host did not offer: it requires the client capabilities ${names.join(', ') || '(unnamed)'}${hint}; it said: ${oneLine(withoutRepeatedPrefix(error.message), 200)}`,
    { server, field: 'requiredCapabilities', value: names, rpcCode: error.code, rpcData: error.data },
    error,
  );
}

function describeAsked(asked: AskedInput): string {
  const message = asked.message === undefined ? '' : ` "${asked.message}"`;
  const fields =
    asked.fields === undefined || asked.fields.length === 0 ? '' : ` (fields: ${asked.fields.join(', ')})`;
  const url = asked.url === undefined ? '' : ` at ${asked.url}`;
  return `${asked.method}${message}${fields}${url}`;
}

/**
 * The SDK prefixes "MCP error <code>: " on both sides: a server that rethrows an MCP error sends
 * the prefixed message, and the client prefixes it again. Say it once.
 */
function withoutRepeatedPrefix(message: string): string {
  return message.replace(/^(MCP error (-?\d+): )(?:MCP error \2: )+/, '$1');
}

function codeFor(rpcCode: number, context: OperationContext): ContextErrorCode {
  if (rpcCode === rpcErrorCodes.requestTimeout) {
    return context.operation === 'resources/read' ? 'READ_TIMEOUT' : 'REQUEST_TIMEOUT';
  }
  if (rpcCode === rpcErrorCodes.connectionClosed) return 'SESSION_CLOSED';
  // Set by the client itself (capResponseBody) when it stopped reading an oversized event.
  if (rpcCode === responseTooLargeCode) return 'LIMIT_EXCEEDED';
  if (rpcCode === rpcErrorCodes.resourceNotFound) return 'RESOURCE_NOT_FOUND';
  // Some servers answer an unknown resource with "invalid params" instead of -32002.
  // Skills extension, "Getting a Skill": an unknown skill is -32602 as well.
  if (
    rpcCode === rpcErrorCodes.invalidParams &&
    (context.operation === 'resources/read' || context.operation === 'skills/get')
  )
    return 'RESOURCE_NOT_FOUND';
  return 'PROTOCOL_ERROR';
}
