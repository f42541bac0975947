import { ContextError } from '../index.js';

const maxPages = 100;
const maxItems = 10_000;

/**
 * Follows `nextCursor` to the end, reporting progress after every page. Bounded like the
 * registry's `{ all: true }`: a repeated cursor or too many pages or items is an error.
 */
export async function listEveryPage<Item>(
  fetchPage: (cursor: string | undefined) => Promise<{ items: Item[]; nextCursor?: string }>,
  report: (items: number, pages: number) => void,
): Promise<Item[]> {
  const items: Item[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 1; ; pages += 1) {
    const page = await fetchPage(cursor);
    items.push(...page.items);
    report(items.length, pages);
    if (page.nextCursor === undefined) return items;
    if (seen.has(page.nextCursor)) {
      throw new ContextError(
        'PAGINATION_LOOP',
        `the server repeated cursor ${JSON.stringify(page.nextCursor)}`,
        {
          value: page.nextCursor,
        },
      );
    }
    if (pages >= maxPages || items.length >= maxItems) {
      throw new ContextError(
        'LIMIT_EXCEEDED',
        `stopped after ${pages} pages and ${items.length} items; page on with --cursor ${page.nextCursor}`,
        { value: page.nextCursor },
      );
    }
    seen.add(page.nextCursor);
    cursor = page.nextCursor;
  }
}
