import { LRUCache } from 'lru-cache';
import { boundedByCount } from '../options/bounded-by-count.js';
import type { Attachment } from '../types.js';
import { deepFreeze } from './deep-freeze.js';
import { type PinRow, toAttachment } from './sqlite-pin-row.js';

/** One scope's pins as last listed: the rows they were built from, and the frozen pins. */
interface Listed {
  readonly rows: readonly PinRow[];
  readonly pins: readonly Attachment[];
  /** The store's own mark of what it had seen when it listed them (see `known`), if it has one. */
  readonly stamp: Stamp | undefined;
}

/**
 * What a store knows its rows by: SQLite's count of changes seen, PostgreSQL's fingerprint of a
 * scope's rows. Compared with `===` only.
 */
export type Stamp = number | string;

/**
 * Pins of the row stores (SQLite, PostgreSQL) as the memory store hands them out: deep-frozen
 * (a caller cannot change what the store holds), one object per pin while its row is unchanged,
 * and one array per scope while none of its rows changed, so a list builds only the pins whose
 * rows changed. A row is unchanged while its id and version are (every write raises the version,
 * see PinRow.version). At most `maxScopes` scopes are remembered, least recently listed dropped
 * first (an empty scope too: a host's conversations usually have no pins of their own).
 */
export class InternedPins {
  readonly #scopes: LRUCache<string, Listed>;

  constructor(maxScopes = 10_000) {
    this.#scopes = new LRUCache(boundedByCount(maxScopes));
  }

  /** The stamp the scope's pins were last listed under, while they are held. */
  stampOf(scope: string): Stamp | undefined {
    return this.#scopes.get(scope)?.stamp;
  }

  /**
   * The scope's pins as last listed, when they were listed under the same `stamp`: a store that
   * can tell that nothing was written since (SQLite's data_version, the fingerprint PostgreSQL
   * answers for the scope's rows) answers them without reading the rows again.
   */
  known(scope: string, stamp: Stamp): readonly Attachment[] | undefined {
    const last = this.#scopes.get(scope);
    return last?.stamp === stamp ? last.pins : undefined;
  }

  /**
   * The pins of `rows`, one scope's in order, reusing the last list's where rows are unchanged;
   * `stamp` is the store's mark for `known`.
   */
  pinsOf(scope: string, rows: readonly PinRow[], location: string, stamp?: Stamp): readonly Attachment[] {
    const last = this.#scopes.get(scope);
    if (last && sameRows(last.rows, rows)) {
      if (last.stamp !== stamp) this.#scopes.set(scope, { ...last, stamp });
      return last.pins;
    }
    const lastById = new Map<string, number>();
    if (last)
      for (let index = 0; index < last.rows.length; index++) lastById.set(last.rows[index]?.id ?? '', index);
    const pins =
      rows.length === 0
        ? noPins
        : Object.freeze(
            rows.map((row) => {
              const index = lastById.get(row.id);
              const kept = last && index !== undefined && sameRow(last.rows[index] as PinRow, row);
              return kept ? (last.pins[index] as Attachment) : deepFreeze(toAttachment(row, location));
            }),
          );
    this.#scopes.set(scope, { rows, pins, stamp });
    return pins;
  }
}

// --- Internal helpers ---

const noPins: readonly Attachment[] = Object.freeze([]);

function sameRows(a: readonly PinRow[], b: readonly PinRow[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++)
    if (!sameRow(a[index] as PinRow, b[index] as PinRow)) return false;
  return true;
}

/** The same state of the same pin: its version changes on every write of its row. */
function sameRow(a: PinRow, b: PinRow): boolean {
  return a.id === b.id && a.version !== undefined && a.version === b.version;
}
