import type { ContextErrorCode } from '../errors.js';

/**
 * Who asked: the operator (the registry used directly), a pipeline (possibly for one of its
 * agents), or a client of `mcp-context serve` whose request was refused before it reached a
 * pipeline (its tenant when its key was valid, and its address).
 */
export type AuditActor =
  | { readonly kind: 'operator' }
  | { readonly kind: 'pipeline'; readonly pipelineId: string; readonly agentId?: string }
  | {
      readonly kind: 'service-client';
      readonly tenant?: string;
      readonly address: string;
      /** The pipeline the request asked for, when it named one. */
      readonly pipelineId?: string;
    };

/** `ok`; `error` (the operation failed); `denied` (the access policy refused it; nothing was sent). */
export type AuditStatus = 'ok' | 'error' | 'denied';

/**
 * One operation on one MCP server, or one provider turn refused before any server was chosen
 * (operation `turn`, no `server`). It names what was touched and how it went — never resource
 * content, prompt or tool argument values, error messages (servers echo inputs into them) or
 * credentials.
 */
export interface AuditRecord {
  /** When the operation started (ISO 8601). */
  readonly at: string;
  readonly actor: AuditActor;
  /** The host's user the operation was for, when the caller named one. */
  readonly principal?: string;
  /** Absent for a refused turn or service request: it named no server before it was refused. */
  readonly server?: string;
  /**
   * The MCP method: `resources/read`, `resources/list`, `prompts/get`, `tools/call` … ; `turn` for
   * a provider turn refused whole (an unknown pipeline or agent: status `denied`, errorCode
   * `UNKNOWN_PIPELINE` or `UNKNOWN_AGENT`); for a service request refused before it reached a
   * pipeline (no or a wrong key, a forbidden pipeline), its method and route (`POST /v1/provide`).
   */
  readonly operation: string;
  readonly uri?: string;
  readonly prompt?: string;
  readonly tool?: string;
  /** Names of the prompt's or tool's arguments, sorted; their values are never recorded. */
  readonly argumentNames?: readonly string[];
  readonly durationMs: number;
  /** Content bytes a read returned, or the size of a prompt's or tool's result. */
  readonly bytes?: number;
  /** Items a listing returned. */
  readonly items?: number;
  readonly status: AuditStatus;
  readonly errorCode?: ContextErrorCode;
  /** The JSON-RPC error code, when the server answered with one. */
  readonly rpcCode?: number;
}

/** Where audit records go. A sink that fails never fails the operation it records. */
export interface AuditSink {
  write(record: AuditRecord): void | Promise<void>;
}
