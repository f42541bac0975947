import { ContextError } from '../errors.js';

export interface Page<T> {
  readonly items: T[];
  readonly nextCursor?: string;
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
 * errors that say what happened, never a silently shortened list.
 */
export async function collectPages<T>(
  fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
  options: PagingOptions,
): Promise<T[]> {
  const items: T[] = [];
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
    if (items.length > options.maxItems) {
      throw new ContextError(
        'LIMIT_EXCEEDED',
        `${options.operation} on server "${options.server}" has more than ${options.maxItems} items`,
        { server: options.server, field: 'maxItems', value: options.maxItems },
      );
    }
    if (result.nextCursor === undefined) return items;
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
