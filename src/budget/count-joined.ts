import { countByShape } from './count-by-shape.js';
import { isSafeBoundary, isSafeJoin } from './find-safe-boundary.js';
import type { Tokenizer } from './tokenizer.js';

/** One part of a text to count: its text, and its exact count when already known. */
export interface JoinedPart {
  readonly text: string;
  readonly tokens?: number;
}

// How far into a counted part to look for a safe boundary near each of its ends.
const joinReach = 256;

/**
 * The exact count of the parts' concatenation, without encoding again what is already counted.
 * A token can span a join (`">\n"` then `/`, a whitespace run, a letter run), so a part's known
 * count is used only for its interior: from a safe boundary near its start to one near its end
 * (see find-safe-boundary.ts: a safe boundary splits text the same way whatever surrounds them,
 * so it is one in the part and in the whole alike); a join that is itself a safe boundary of the
 * whole (a marker's `"\n"` before a line that starts with a word) is the interior's end, and
 * nothing of that side is counted again. Interior = known count less the counts of the part's
 * two short ends; everything between interiors (the ends, the joins, parts without a count) is
 * counted as it stands in the whole, by its shape where it is short (count-by-shape.ts: a marker's
 * words are counted once, its offsets apart). Parts
 * too short or without a safe boundary near their ends are counted with their neighbours. A
 * tokenizer that is not `piecewise` counts the concatenation whole.
 */
export async function countJoined(parts: readonly JoinedPart[], tokenizer: Tokenizer): Promise<number> {
  // Safe boundaries are tiktoken's: any other tokenizer counts the whole.
  if (!tokenizer.piecewise) return tokenizer.count(parts.map((part) => part.text).join(''));
  const present = parts.filter((part) => part.text.length > 0);
  // Texts to count as they stand (each from a safe boundary of the whole to one), and the ends
  // whose counts come off their parts' known counts.
  const between: string[] = [];
  const ends: string[] = [];
  let known = 0;
  let gap = '';
  for (let index = 0; index < present.length; index++) {
    const part = present[index] as JoinedPart;
    const inner =
      part.tokens === undefined
        ? undefined
        : interiorOf(part.text, safeJoinAt(present, index), safeJoinAt(present, index + 1));
    if (inner === undefined) {
      gap += part.text;
      continue;
    }
    const [start, end] = inner;
    const head = part.text.slice(0, start);
    const tail = part.text.slice(end);
    between.push(gap + head);
    gap = tail;
    known += part.tokens as number;
    ends.push(head, tail);
  }
  between.push(gap);
  let total = known;
  const waiting: Promise<number>[] = [];
  for (const text of ends) {
    if (text.length === 0) continue;
    const counted = tokenizer.countShort?.(text);
    if (counted !== undefined) total -= counted;
    else waiting.push(tokenizer.count(text).then((count) => -count));
  }
  for (const text of between) {
    if (text.length === 0) continue;
    const counted = countByShape(text, tokenizer);
    if (counted !== undefined) total += counted;
    else waiting.push(tokenizer.count(text));
  }
  for (const count of await Promise.all(waiting)) total += count;
  return total;
}

// --- Internal helpers ---

/**
 * Whether the join before `present[index]` is a safe boundary of the whole: isSafeBoundary reads
 * up to two code points before it (three UTF-16 units, so a pair is read whole) and two
 * characters after, which may lie in the parts beyond. The whole's start and end are boundaries.
 */
function safeJoinAt(present: readonly JoinedPart[], index: number): boolean {
  if (index <= 0 || index >= present.length) return true;
  const previous = (present[index - 1] as JoinedPart).text;
  const next = (present[index] as JoinedPart).text;
  // Parts long enough to hold what it reads, the usual case: read in place, nothing joined.
  if (previous.length >= 3 && next.length >= 2) return isSafeJoin(previous, next);
  let after = '';
  for (let next = index; next < present.length && after.length < 2; next++)
    after += (present[next] as JoinedPart).text.slice(0, 2 - after.length);
  let before = '';
  for (let previous = index - 1; previous >= 0 && before.length < 3; previous--)
    before = (present[previous] as JoinedPart).text.slice(-(3 - before.length)) + before;
  return isSafeBoundary(`${before}${after}`, before.length);
}

/**
 * The interior of a counted part: from its start when the join before it is safe, else from a
 * safe boundary near its start (each with the characters isSafeBoundary reads, index - 1 to
 * index + 1, inside the part); likewise at its end. Undefined when there is none within reach.
 */
function interiorOf(text: string, safeStart: boolean, safeEnd: boolean): [number, number] | undefined {
  let start = safeStart ? 0 : -1;
  for (let index = 1; start < 0 && index <= Math.min(joinReach, text.length - 2); index++) {
    if (isSafeBoundary(text, index)) start = index;
  }
  if (start < 0) return undefined;
  if (safeEnd) return [start, text.length];
  for (let index = text.length - 2; index >= Math.max(start, text.length - joinReach); index--) {
    if (isSafeBoundary(text, index)) return [start, index];
  }
  return undefined;
}
