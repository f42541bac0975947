import { boundaryTestFor } from './find-safe-boundary.js';
import type { Tokenizer } from './tokenizer.js';

// Distinct segments kept per tokenizer, oldest dropped first: frames and markers of a turn
// repeat a few dozen; the rest (uris, hashes, counts) is new on each attachment.
const memoEntries = 4096;
// Longer segments are content, not frame words: counted, not kept.
const memoChars = 128;

type Memo = Map<string, number | Promise<number>>;
type BoundaryTest = (text: string, index: number) => boolean;

const memos = new WeakMap<Tokenizer, Memo>();

/**
 * The exact count of `text`, as the sum of the counts of its segments: it is cut at every
 * boundary `boundaryTestFor(tokenizer)` finds (each splits the text the same way whatever
 * surrounds it, so the counts of the two sides add up to the whole's), and each short segment
 * is counted once per tokenizer. Frames and markers are mostly the same words on every
 * attachment and every turn (` server="docs"`, ` truncated="true">`, ` tokens omitted`): a
 * frame or marker costs only what is new in it, its uri, hash and numbers. What is new is
 * encoded in one call where the tokenizer can read each segment's count off it (countPrefix).
 * A text without boundaries is one segment, counted as it stands.
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
  // Segments no count is kept or under way for, each once, and where each occurs.
  const fresh = new Map<string, number>();
  const freshAt: number[] = [];
  let start = 0;
  for (let index = 1; index <= text.length; index++) {
    if (index < text.length && !(mayBeBoundary(text, index) && isBoundary(text, index))) continue;
    const segment = text.slice(start, index);
    start = index;
    if (segment.length > memoChars) {
      pending.push(tokenizer.count(segment));
      continue;
    }
    const kept = memo.get(segment);
    if (typeof kept === 'number') known += kept;
    else if (kept !== undefined) pending.push(kept);
    else {
      let at = fresh.get(segment);
      if (at === undefined) {
        at = fresh.size;
        fresh.set(segment, at);
      }
      freshAt.push(at);
    }
  }
  if (fresh.size > 0) {
    const segments = [...fresh.keys()];
    const counted = countEach(segments, tokenizer, isBoundary);
    for (const [at, segment] of segments.entries())
      keep(
        memo,
        segment,
        counted.then((counts) => counts[at] ?? 0),
      );
    pending.push(counted.then((counts) => freshAt.reduce((sum, at) => sum + (counts[at] ?? 0), 0)));
  }
  if (pending.length === 0) return known;
  const counts = await Promise.all(pending);
  return counts.reduce((sum, count) => sum + count, known);
}

// --- Internal helpers ---

const newline = 0x0a;
const space = 0x20;

/**
 * Every boundary the rules find lies before a space, after a newline or where a run of ASCII
 * digits starts or ends: a cheap filter before the full test.
 */
function mayBeBoundary(text: string, index: number): boolean {
  const after = text.charCodeAt(index);
  const before = text.charCodeAt(index - 1);
  return after === space || before === newline || isDigit(after) !== isDigit(before);
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * The count of each segment. Where the tokenizer can read a prefix's count off an encoding
 * (countPrefix), the segments are encoded together in one call, each one's count read off at
 * its end: that holds where every join in the text encoded is a boundary (the tokens up to a
 * boundary are those of the text before it), so between two segments whose join is none goes a
 * separator whose own joins are (its count read off and dropped). Segments no separator fits
 * start another text; without countPrefix, each is counted on its own.
 */
async function countEach(
  segments: readonly string[],
  tokenizer: Tokenizer,
  isBoundary: BoundaryTest,
): Promise<number[]> {
  const countPrefix = tokenizer.countPrefix;
  const batches =
    countPrefix && segments.length > 1
      ? batchesOf(segments, isBoundary)
      : segments.map((text, segment) => ({ text, ends: [{ at: text.length, segment }] }));
  const counts: number[] = [];
  await Promise.all(
    batches.map(async (batch) => {
      // A test may read a character past a join: every join is checked again on the whole text.
      const readable =
        countPrefix && batch.ends.length > 1 && batch.ends.every(({ at }) => isBoundary(batch.text, at));
      const read = readable ? await readOff(batch, tokenizer, countPrefix) : undefined;
      await Promise.all(
        batch.ends.map(async ({ at, segment }, index) => {
          if (segment === undefined) return;
          const from = index === 0 ? 0 : (batch.ends[index - 1] as End).at;
          counts[segment] = read?.[index] ?? (await tokenizer.count(batch.text.slice(from, at)));
        }),
      );
    }),
  );
  return counts;
}

/** A text of segments (and separators), with where each ends. */
interface Batch {
  readonly text: string;
  readonly ends: readonly End[];
}

/** Where a piece of a batch's text ends, and which segment it is (none for a separator). */
interface End {
  readonly at: number;
  readonly segment?: number;
}

/** The count of each piece of `batch`, read off one encoding of it; undefined if one is not. */
async function readOff(
  batch: Batch,
  tokenizer: Tokenizer,
  countPrefix: NonNullable<Tokenizer['countPrefix']>,
): Promise<number[] | undefined> {
  const tokens = await tokenizer.encode(batch.text);
  const encoding = { tokens, start: 0, end: batch.text.length, complete: true };
  const counts: number[] = [];
  let before = 0;
  for (const { at } of batch.ends) {
    const upTo = at === batch.text.length ? tokens.length : countPrefix(batch.text, encoding, at);
    if (upTo === undefined) return undefined;
    counts.push(upTo - before);
    before = upTo;
  }
  return counts;
}

// Tried in order between two segments whose join is no boundary: a space after the segment
// before (a piece edge unless it ends in whitespace), then a newline or a digit before the
// segment after (a boundary before anything but whitespace and `/`, or before ASCII other than
// digits). `0 \n` for a segment before that ends in a newline.
const separators = [' \n', ' 0', '0 \n'];

/** The segments as few texts as their joins allow, a separator where one fits. */
function batchesOf(segments: readonly string[], isBoundary: BoundaryTest): Batch[] {
  const batches: Batch[] = [];
  let text = '';
  let ends: End[] = [];
  for (const [segment, next] of segments.entries()) {
    if (text.length > 0 && !isBoundary(text + next, text.length)) {
      const separator = separators.find((candidate) => {
        const joined = text + candidate + next;
        return isBoundary(joined, text.length) && isBoundary(joined, text.length + candidate.length);
      });
      if (separator === undefined) {
        batches.push({ text, ends });
        text = '';
        ends = [];
      } else {
        text += separator;
        ends.push({ at: text.length });
      }
    }
    text += next;
    ends.push({ at: text.length, segment });
  }
  batches.push({ text, ends });
  return batches;
}

/** Keeps the count under way for `segment`, then the count; forgets it should counting fail. */
function keep(memo: Memo, segment: string, counting: Promise<number>): void {
  if (memo.size >= memoEntries) {
    const oldest = memo.keys().next();
    if (!oldest.done) memo.delete(oldest.value);
  }
  memo.set(segment, counting);
  counting.then(
    (count) => {
      if (memo.get(segment) === counting) memo.set(segment, count);
    },
    () => {
      if (memo.get(segment) === counting) memo.delete(segment);
    },
  );
}
