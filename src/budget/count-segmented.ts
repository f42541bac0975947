import { boundaryTestFor } from './find-safe-boundary.js';
import type { Tokenizer } from './tokenizer.js';

// Distinct segments kept per tokenizer, oldest dropped first: frames and markers of a turn
// repeat a few dozen; the rest (uris, hashes, counts) is new on each attachment.
const memoEntries = 4096;
// Longer segments are content, not frame words: counted, not kept.
const memoChars = 128;

const memos = new WeakMap<Tokenizer, Map<string, number | Promise<number>>>();

/**
 * The exact count of `text`, as the sum of the counts of its segments: it is cut at every
 * boundary `boundaryTestFor(tokenizer)` finds (each splits the text the same way whatever
 * surrounds it, so the counts of the two sides add up to the whole's), and each short segment
 * is counted once per tokenizer. Frames and markers are mostly the same words on every
 * attachment and every turn (` server="docs"`, ` truncated="true">`, ` tokens omitted`): a
 * frame or marker costs only what is new in it, its uri, hash and numbers. A text without
 * boundaries is one segment, counted as it stands.
 */
export async function countSegmented(text: string, tokenizer: Tokenizer): Promise<number> {
  const isBoundary = boundaryTestFor(tokenizer);
  let memo = memos.get(tokenizer);
  if (!memo) {
    memo = new Map();
    memos.set(tokenizer, memo);
  }
  let known = 0;
  const pending: Promise<number>[] = [];
  let start = 0;
  for (let index = 1; index <= text.length; index++) {
    if (index < text.length && !(mayBeBoundary(text, index) && isBoundary(text, index))) continue;
    const segment = text.slice(start, index);
    start = index;
    const count = segment.length > memoChars ? tokenizer.count(segment) : countOnce(segment, tokenizer, memo);
    if (typeof count === 'number') known += count;
    else pending.push(count);
  }
  if (pending.length === 0) return known;
  const counted = await Promise.all(pending);
  return counted.reduce((sum, count) => sum + count, known);
}

// --- Internal helpers ---

const newline = 0x0a;
const space = 0x20;

/** Every boundary either rule finds lies before a space or after a newline. */
function mayBeBoundary(text: string, index: number): boolean {
  return text.charCodeAt(index) === space || text.charCodeAt(index - 1) === newline;
}

/**
 * The kept count of `segment`, or the count under way (concurrent attachments of a turn frame
 * the same words at once), or a new count that is kept once known.
 */
function countOnce(
  segment: string,
  tokenizer: Tokenizer,
  memo: Map<string, number | Promise<number>>,
): number | Promise<number> {
  const kept = memo.get(segment);
  if (kept !== undefined) return kept;
  if (memo.size >= memoEntries) {
    const oldest = memo.keys().next();
    if (!oldest.done) memo.delete(oldest.value);
  }
  const counting = tokenizer.count(segment).then(
    (count) => {
      if (memo.get(segment) === counting) memo.set(segment, count);
      return count;
    },
    (error: unknown) => {
      if (memo.get(segment) === counting) memo.delete(segment);
      throw error;
    },
  );
  memo.set(segment, counting);
  return counting;
}
