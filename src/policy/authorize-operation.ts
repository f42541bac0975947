import type { AuditSubject } from '../audit/audit-log.js';
import type { AccessDecision, AccessRequest, Authorizer, Principal } from './access-request.js';

/** Where denials are audited: the registry's audit log. */
export interface DenialAudit {
  recordDenied(actor: Principal, subject: Omit<AuditSubject, 'actor'>): void;
}

/**
 * The one authorization path: every list, read, subscribe, prompt and tool call — from a
 * provider turn, an exploration tool, a prompt command or the CLI — is decided here, and every
 * denial is audited as the MCP method that was never sent (`argumentNames`: names only, never
 * values).
 */
export function authorizeOperation(
  policy: Authorizer,
  audit: DenialAudit,
  request: AccessRequest,
  method: string,
  argumentNames?: string[],
): AccessDecision {
  const decision = policy.authorize(request);
  if (!decision.allowed) {
    audit.recordDenied(
      { pipelineId: request.pipelineId, ...(request.agentId !== undefined && { agentId: request.agentId }) },
      {
        server: request.server,
        operation: method,
        ...(request.uri !== undefined && { uri: request.uri }),
        ...(request.prompt !== undefined && { prompt: request.prompt }),
        ...(request.tool !== undefined && { tool: request.tool }),
        ...(argumentNames !== undefined && { argumentNames }),
      },
    );
  }
  return decision;
}
