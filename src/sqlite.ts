// The `mcp-resource-context/sqlite` entry: pins in an SQLite file. Kept off the root entry so
// hosts that never use SQLite never load the native better-sqlite3 module.
// Any new export added here becomes public API. Use named exports, not wildcards.

export {
  SqliteAttachmentStore,
  type SqliteAttachmentStoreOptions,
} from './attachments/sqlite-attachment-store.js';
