import { ContextError } from '../errors.js';
import { type CacheHints, cacheHintsOf, narrowestHints } from './cache-hints-of.js';

export interface Page<T> {
  readonly items: T[];
  readonly nextCursor?: string;
  /** What the page's result says of its caching (2026-07-28 `ttlMs`, `cacheScope`). */
  readonly hints?: CacheHints | undefined;
}

/** A page of `items` from a list result, with the result's cursor and cache hints. */
export function pageOf<T>(items: T[], result: { nextCursor?: string | undefined }): Page<T> {
  return { items, nextCursor: result.nextCursor, hints: cacheHintsOf(result) };
}

export interface PagingOptions {
  readonly server: string;
  readonly operation: string;
  /** Most pages to fetch before giving up (default 100). */
  readonly maxPages: number;
  /** Most items to collect before giving up (default 10,000). */
  readonly maxItems: number;
}

/**
 * Follows `nextCursor` until the server stops sending one. A cursor seen twice would loop
 * forever, and a listing larger than the caps would grow memory without bound: both are
 * errors that say what happened, never a silently shortened list. The whole is cached as its
 * narrowest page allows (each page's hints are its own: see narrowestHints).
 */
export async function collectPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  options: PagingOptions,
): Promise<{ items: T[]; hints: CacheHints | undefined }> {
  const items: T[] = [];
  let hints: CacheHints | undefined;
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= options.maxPages) {
      throw new ContextError(
        'LIMIT_EXCEEDED',
        `${options.operation} on server "${options.server}" has more than ${options.maxPages} pages`,
        { server: options.server, field: 'maxPages', value: options.maxPages },
      );
    }
    const result = await fetchPage(cursor);
    items.push(...result.items);
    hints = page === 0 ? result.hints : narrowestHints(hints, result.hints);
    if (items.length > options.maxItems) {
      throw new ContextError(
        'LIMIT_EXCEEDED',
        `${options.operation} on server "${options.server}" has more than ${options.maxItems} items`,
        { server: options.server, field: 'maxItems', value: options.maxItems },
      );
    }
    if (result.nextCursor === undefined) return { items, hints };
    if (seen.has(result.nextCursor)) {
      throw new ContextError(
        'PAGINATION_LOOP',
        `${options.operation} on server "${options.server}" repeated cursor ${JSON.stringify(result.nextCursor)}`,
        { server: options.server, value: result.nextCursor },
      );
    }
    seen.add(result.nextCursor);
    cursor = result.nextCursor;
  }
}
