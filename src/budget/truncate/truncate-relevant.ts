import type { JoinedPart } from '../count-joined.js';
import { isSafeBoundary } from '../find-safe-boundary.js';
import { bestFirst } from './best-first.js';
import { type ChunkIndex, indexChunks, scoreQuery } from './chunk-index.js';
import { truncateHead } from './truncate-head.js';
import type { TruncationRequest, TruncationStrategy } from './truncation-strategy.js';

// After this many chunks in a row that do not fit, the share is as full as it will get.
const maxMisses = 8;
// A chunk not counted yet whose estimate (the body's tokens per character) is over this many
// times what is left of the share is taken as a miss without counting it: near a full share the
// misses were a third of a new body's chunk counts (hostLike), and a chunk is seldom under half
// its estimate.
const hopelessOverRoom = 2;

/**
 * Keeps the chunks most relevant to the user's message (BM25 over paragraph/line chunks), in
 * document order, with a marker at every gap: the first says how to read on, the rest are brief
 * (a chunk that closes a gap is worth its marker's tokens). Without a query, or when nothing matches, it
 * falls back to `head`. Offsets in its markers are proportional estimates (marked `~`): only
 * the chunks shown are counted.
 * What it reads of the body besides the query — chunks, term statistics, each chunk's tokens and
 * the pinned prefix's — is derived once per body and kept (request.chunks): a turn over a body
 * seen before scores its query and counts only chunks no earlier cut weighed.
 */
export const truncateRelevant: TruncationStrategy = async (request) => {
  const { body, tokenizer } = request;
  // The pinned prefix (a CSV header), unless it would take over half the share.
  let index = indexFor(request, Math.max(request.pinnedChars, 0));
  let pinnedTokens = 0;
  if (index.from > 0) {
    if (index.pinnedTokens < 0) index.pinnedTokens = await tokenizer.count(body.slice(0, index.from));
    pinnedTokens = index.pinnedTokens;
    if (pinnedTokens * 2 > request.contentTokens) {
      index = indexFor(request, 0);
      pinnedTokens = 0;
    }
  }
  const count = index.starts.length;
  const scores = scoreQuery(index, request.query ?? '');
  if (!scores.some((score) => score > 0)) return truncateHead(request);
  const nextMatch = bestFirst(scores);

  // Shown chunks, and the gaps (elided runs of chunks) between them, kept as chunks are added.
  const shown = new Uint8Array(count);
  let gaps = 1;
  let chosen = 0;
  let used = pinnedTokens;
  let misses = 0;
  // The plan paid for one marker, the cut's first (full); every further gap costs a brief one.
  const brief = request.briefMarkerTokens ?? request.markerTokens;
  const markersBeyondFirst = (gapCount: number) => Math.max(0, gapCount - 1) * brief;
  // Best match first, then the chunks that match nothing, in document order.
  let zero = 0;
  const following = (): number | undefined => {
    const match = nextMatch();
    if (match !== undefined) return match;
    while (zero < count && (scores[zero] as number) > 0) zero++;
    return zero < count ? zero++ : undefined;
  };
  const perChar = request.originalTokens / Math.max(1, body.length);
  for (let chunk = following(); chunk !== undefined; chunk = following()) {
    if (misses >= maxMisses || used >= request.contentTokens) break;
    let tokens = index.tokens[chunk] as number;
    if (tokens < 0) {
      const start = index.starts[chunk] as number;
      const end = index.ends[chunk] as number;
      // What is left, and the brief marker a chunk that closes a gap gives back.
      const room = request.contentTokens - used + brief;
      if ((end - start) * perChar > hopelessOverRoom * room) {
        misses++;
        continue;
      }
      tokens = await countChunk(request, start, end);
      index.tokens[chunk] = tokens;
    }
    // A chunk that splits a gap pays for a marker; one that closes a gap gets its marker back.
    const after = gaps + gapChange(shown, chunk);
    const cost = tokens + markersBeyondFirst(after) - markersBeyondFirst(gaps);
    if (used + cost > request.contentTokens) {
      misses++;
      continue;
    }
    shown[chunk] = 1;
    gaps = after;
    chosen++;
    used += cost;
    misses = 0;
  }
  if (chosen === 0) return truncateHead(request);

  const tokenAt = (char: number) => Math.round(char * perChar);
  const parts: JoinedPart[] = [];
  const elided: { startToken: number; endToken: number }[] = [];
  // The run of shown text being gathered, [runStart, cursor), with its count (-1: none yet):
  // consecutive chunks are one run, so one slice of the body rather than a concatenation.
  let cursor = index.from;
  let runStart = 0;
  let runTokens = index.from > 0 ? pinnedTokens : -1;
  const endRun = () => {
    if (runTokens >= 0) parts.push({ text: body.slice(runStart, cursor), tokens: runTokens });
    runTokens = -1;
  };
  for (let chunk = 0; chunk <= count; chunk++) {
    const last = chunk === count;
    if (!last && shown[chunk] === 0) continue;
    const gapEnd = last ? body.length : (index.starts[chunk] as number);
    if (gapEnd > cursor) {
      endRun();
      const range = {
        startToken: tokenAt(cursor),
        endToken: last ? request.originalTokens : tokenAt(gapEnd),
      };
      const marker = request.marker(range, true, elided.length > 0);
      // After a line's end the marker needs no newline of its own, and without it the join is a
      // piece boundary (find-safe-boundary.ts): the marker is counted apart from its neighbours.
      // At the body's start there is none to follow (charCodeAt(-1) is NaN).
      const afterLine = body.charCodeAt(cursor - 1) === 0x0a && marker.startsWith('\n');
      parts.push({ text: afterLine ? marker.slice(1) : marker });
      elided.push(range);
    }
    if (!last) {
      const tokens = index.tokens[chunk] as number;
      // A chunk right after a shown one, at a safe boundary, counts the same apart as joined to
      // it (find-safe-boundary.ts): one part for the run, so countJoined looks at the run's ends only.
      if (runTokens >= 0 && isSafeBoundary(body, gapEnd)) runTokens += tokens;
      else {
        endRun();
        runStart = gapEnd;
        runTokens = tokens;
      }
      cursor = index.ends[chunk] as number;
    }
  }
  endRun();
  return { text: parts.map((part) => part.text).join(''), elided, parts };
};

// --- Internal helpers ---

/**
 * Tokens of `body.slice(start, end)` on its own. Where the measuring pass's tokens cover it, read
 * off them (a piecewise tokenizer's prefix counts at two piece boundaries: the chunk between
 * splits into the same pieces on its own as in the body, find-safe-boundary.ts): a new body's
 * head is not encoded a second time, chunk by chunk. Else counted.
 */
async function countChunk(request: TruncationRequest, start: number, end: number): Promise<number> {
  const { body, tokenizer, headEncoding: head } = request;
  if (tokenizer.piecewise && tokenizer.countPrefix && head && !head.standalone && end <= head.end) {
    const before = start === 0 ? 0 : tokenizer.countPrefix(body, head, start);
    const through = before === undefined ? undefined : tokenizer.countPrefix(body, head, end);
    if (through !== undefined) return through - (before as number);
  }
  const text = body.slice(start, end);
  // A chunk short enough is counted at once: a new body's chunks, dozens, a promise each otherwise.
  // Kept by the tokenizer only where no index keeps its count (request.chunks).
  return tokenizer.countShort?.(text, request.chunks === undefined) ?? (await tokenizer.count(text));
}

/** The body's chunk index from `from`: the one kept for it, or built (and kept). */
function indexFor(request: TruncationRequest, from: number): ChunkIndex {
  const build = () => indexChunks(request.body, from);
  const derived = request.chunks;
  if (!derived) return build();
  const index = derived.memo.chunkIndex(`${derived.key}\u0000${from}`, build, derived.probation === true);
  // A kept index read with another body would cut the wrong text: never, but cheap to rule out.
  return index.bodyLength === request.body.length && index.from === from ? index : build();
}

/**
 * How showing `chunk` (not shown yet) changes the number of gaps: +1 when it splits the gap it lies
 * in (a hidden chunk on both sides), -1 when it closes one (no hidden chunk beside it), else 0 (it
 * shrinks one). Constant time: only its neighbours matter (past either end there is none: an
 * index out of range reads undefined).
 */
function gapChange(shown: Uint8Array, chunk: number): number {
  return (shown[chunk - 1] === 0 ? 1 : 0) + (shown[chunk + 1] === 0 ? 1 : 0) - 1;
}
