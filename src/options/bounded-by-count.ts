/**
 * LRUCache options that hold at most `entries` entries. Through `maxSize` with every entry of
 * size 1 rather than lru-cache's `max`: `max` allocates all its slots up front (milliseconds for
 * 10,000), and providers, tokenizers and change trackers are created often (a cold turn, a test).
 */
export function boundedByCount(entries: number): { maxSize: number; sizeCalculation: () => number } {
  return { maxSize: entries, sizeCalculation: sizeOne };
}

// --- Internal helpers ---

function sizeOne(): number {
  return 1;
}
