// The `mcp-resource-context/audit` entry: audit records (server, operation, uri or prompt name, duration, size, status: never content, argument values or credentials) and the sinks that keep them.
// Any new export added here becomes public API. Use named exports, not wildcards.

export type { AuditActor, AuditRecord, AuditSink, AuditStatus } from './audit/audit-record.js';
export { JsonlAuditSink } from './audit/jsonl-audit-sink.js';
export { MemoryAuditSink } from './audit/memory-audit-sink.js';
