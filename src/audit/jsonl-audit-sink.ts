import { appendFile } from 'node:fs/promises';
import type { AuditRecord, AuditSink } from './audit-record.js';

/**
 * Appends one JSON object per line to a file (created 0600 if absent). Writes are queued, so
 * lines keep the order of operations and never interleave; `flush()` waits for all of them.
 */
export class JsonlAuditSink implements AuditSink {
  readonly path: string;
  #queue: Promise<void> = Promise.resolve();

  constructor(path: string) {
    this.path = path;
  }

  write(record: AuditRecord): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    const written = this.#queue.then(() => appendFile(this.path, line, { mode: 0o600 }));
    // The queue goes on after a failed write; the caller of write() still sees the failure.
    this.#queue = written.catch(() => undefined);
    return written;
  }

  /** Resolves when every record written so far is on disk (or has failed). */
  flush(): Promise<void> {
    return this.#queue;
  }
}
