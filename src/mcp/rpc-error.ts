/**
 * The JSON-RPC error codes the registry tells apart: MCP's own (a closed connection, a timeout,
 * the 2025 not-found) and JSON-RPC's invalid params.
 */
export const rpcErrorCodes = {
  connectionClosed: -32000,
  requestTimeout: -32001,
  resourceNotFound: -32002,
  invalidParams: -32602,
} as const;

/**
 * A JSON-RPC error, as the registry classifies it: one a server answered (its code and data), or
 * the client's own (a timeout, a closed connection) under the JSON-RPC code MCP gives it.
 * ClientSession turns the v2 SDK's errors into these, so that classification (toContextError,
 * the transport checks) reads one shape and does not load the SDK. The message starts
 * `MCP error <code>: `, as the SDKs' do.
 */
export class RpcError extends Error {
  override readonly name = 'RpcError';

  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`MCP error ${code}: ${message}`);
  }
}
