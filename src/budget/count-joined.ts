import { isSafeBoundary } from './find-safe-boundary.js';
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
 * (see find-safe-boundary.ts: a safe boundary splits text the same way whatever surrounds it,
 * so it is one in the part and in the whole alike). Interior = known count less the counts of
 * the part's two short ends; everything between interiors (the ends, the joins, parts without
 * a count) is counted as it stands in the whole. Parts too short or without a safe boundary
 * near their ends are counted with their neighbours. A tokenizer that is not `piecewise`
 * counts the concatenation whole.
 */
export async function countJoined(parts: readonly JoinedPart[], tokenizer: Tokenizer): Promise<number> {
  // Safe boundaries are tiktoken's: any other tokenizer counts the whole.
  if (!tokenizer.piecewise) return tokenizer.count(parts.map((part) => part.text).join(''));
  const between: string[] = [];
  const interiors: Promise<number>[] = [];
  let gap = '';
  for (const part of parts) {
    const inner = part.tokens === undefined ? undefined : interiorOf(part.text);
    if (inner === undefined) {
      gap += part.text;
      continue;
    }
    const [start, end] = inner;
    const head = part.text.slice(0, start);
    const tail = part.text.slice(end);
    between.push(gap + head);
    gap = tail;
    const known = part.tokens as number;
    interiors.push(
      Promise.all([tokenizer.count(head), tokenizer.count(tail)]).then(
        ([headTokens, tailTokens]) => known - headTokens - tailTokens,
      ),
    );
  }
  between.push(gap);
  const counts = await Promise.all([
    ...interiors,
    ...between.map((text) => (text.length === 0 ? 0 : tokenizer.count(text))),
  ]);
  return counts.reduce((sum, count) => sum + count, 0);
}

// --- Internal helpers ---

/**
 * Safe boundaries near both ends of `text`, each with the characters isSafeBoundary reads
 * (index - 1 to index + 1) inside it, or undefined when there are none within reach.
 */
function interiorOf(text: string): [number, number] | undefined {
  let start = -1;
  for (let index = 1; index <= Math.min(joinReach, text.length - 2); index++) {
    if (isSafeBoundary(text, index)) {
      start = index;
      break;
    }
  }
  if (start < 0) return undefined;
  for (let index = text.length - 2; index >= Math.max(start, text.length - joinReach); index--) {
    if (isSafeBoundary(text, index)) return [start, index];
  }
  return undefined;
}
