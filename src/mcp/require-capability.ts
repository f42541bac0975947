import { ContextError } from '../errors.js';

/** An operation a server did not declare is refused here, not sent (MCP spec, "Capability Negotiation"). */
export function requireCapability(server: string, declared: unknown, capability: string): void {
  if (declared === undefined || declared === null) {
    throw new ContextError('CAPABILITY_MISSING', `server "${server}" does not declare ${capability}`, {
      server,
      field: 'capabilities',
      value: capability,
    });
  }
}
