import type { AuditRecord, AuditSink } from './audit-record.js';

/** Keeps records in memory, oldest first, at most `maxRecords` (default 10,000; older ones drop off). */
export class MemoryAuditSink implements AuditSink {
  readonly #records: AuditRecord[] = [];
  readonly #maxRecords: number;
  #dropped = 0;

  constructor(options: { maxRecords?: number } = {}) {
    this.#maxRecords = options.maxRecords ?? 10_000;
  }

  write(record: AuditRecord): void {
    this.#records.push(record);
    if (this.#records.length > this.#maxRecords) {
      this.#records.shift();
      this.#dropped++;
    }
  }

  get records(): readonly AuditRecord[] {
    return this.#records;
  }

  /** Records that fell off the front because of `maxRecords`. */
  get dropped(): number {
    return this.#dropped;
  }

  clear(): void {
    this.#records.length = 0;
  }
}
