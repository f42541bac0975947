// The `mcp-resource-context/postgres` entry: pins in PostgreSQL, shared by host replicas. Kept
// off the root entry so hosts that never use PostgreSQL never load `pg` (an optional peer).
// Any new export added here becomes public API. Use named exports, not wildcards.

export {
  PostgresAttachmentStore,
  type PostgresAttachmentStoreOptions,
} from './replicas/postgres-attachment-store.js';
