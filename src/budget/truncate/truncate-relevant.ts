import type { JoinedPart } from '../count-joined.js';
import { isSafeBoundary } from '../find-safe-boundary.js';
import { type ChunkIndex, indexChunks, scoreQuery } from './chunk-index.js';
import { truncateHead } from './truncate-head.js';
import type { TruncationRequest, TruncationStrategy } from './truncation-strategy.js';

// After this many chunks in a row that do not fit, the share is as full as it will get.
const maxMisses = 8;

/**
 * Keeps the chunks most relevant to the user's message (BM25 over paragraph/line chunks), in
 * document order, with a marker at every gap. Without a query, or when nothing matches, it
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
  const pinnedText = body.slice(0, index.from);
  const count = index.starts.length;
  const scores = scoreQuery(index, request.query ?? '');
  const matching: number[] = [];
  for (let chunk = 0; chunk < count; chunk++) if ((scores[chunk] as number) > 0) matching.push(chunk);
  if (matching.length === 0) return truncateHead(request);
  matching.sort((a, c) => (scores[c] as number) - (scores[a] as number) || a - c);

  // Shown chunks; the number of gaps (elided runs of chunks) is kept as chunks are added.
  const shown = new Uint8Array(count);
  let chosen = 0;
  let used = pinnedTokens;
  let misses = 0;
  // Best match first, then the chunks that match nothing, in document order.
  let next = 0;
  let zero = 0;
  const following = (): number | undefined => {
    if (next < matching.length) return matching[next++];
    while (zero < count && (scores[zero] as number) > 0) zero++;
    return zero < count ? zero++ : undefined;
  };
  for (let chunk = following(); chunk !== undefined; chunk = following()) {
    if (misses >= maxMisses || used >= request.contentTokens) break;
    let tokens = index.tokens[chunk] as number;
    if (tokens < 0) {
      const text = body.slice(index.starts[chunk], index.ends[chunk]);
      // A chunk short enough is counted at once: a new body's chunks, dozens, a promise each otherwise.
      tokens = tokenizer.countShort?.(text) ?? (await tokenizer.count(text));
      index.tokens[chunk] = tokens;
    }
    // The plan already paid for one marker (everything elided is one gap); a chunk that splits
    // a gap in two pays for the second.
    const cost = tokens + (splitsGap(shown, chunk) ? request.markerTokens : 0);
    if (used + cost > request.contentTokens) {
      misses++;
      continue;
    }
    shown[chunk] = 1;
    chosen++;
    used += cost;
    misses = 0;
  }
  if (chosen === 0) return truncateHead(request);

  const perChar = request.originalTokens / Math.max(1, body.length);
  const tokenAt = (char: number) => Math.round(char * perChar);
  const parts: JoinedPart[] = pinnedText.length > 0 ? [{ text: pinnedText, tokens: pinnedTokens }] : [];
  const elided: { startToken: number; endToken: number }[] = [];
  let cursor = index.from;
  for (let chunk = 0; chunk <= count; chunk++) {
    const last = chunk === count;
    if (!last && shown[chunk] === 0) continue;
    const gapEnd = last ? body.length : (index.starts[chunk] as number);
    if (gapEnd > cursor) {
      const range = {
        startToken: tokenAt(cursor),
        endToken: last ? request.originalTokens : tokenAt(gapEnd),
      };
      elided.push(range);
      parts.push({ text: request.marker(range, true) });
    }
    if (!last) {
      const end = index.ends[chunk] as number;
      const tokens = index.tokens[chunk] as number;
      const previous = parts[parts.length - 1];
      // A chunk right after a shown one, at a safe boundary, counts the same apart as joined to
      // it (find-safe-boundary.ts): one part for the run, so countJoined looks at the run's ends only.
      if (gapEnd === cursor && previous?.tokens !== undefined && isSafeBoundary(body, gapEnd))
        parts[parts.length - 1] = {
          text: previous.text + body.slice(gapEnd, end),
          tokens: previous.tokens + tokens,
        };
      else parts.push({ text: body.slice(gapEnd, end), tokens });
      cursor = end;
    }
  }
  return { text: parts.map((part) => part.text).join(''), elided, parts };
};

// --- Internal helpers ---

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
 * Whether showing `chunk` (not shown yet) splits the gap it lies in into two: it has a hidden
 * chunk on both sides. Showing it otherwise shrinks a gap or closes one. Constant time: the
 * change in the number of gaps depends only on its neighbours.
 */
function splitsGap(shown: Uint8Array, chunk: number): boolean {
  return chunk > 0 && chunk < shown.length - 1 && shown[chunk - 1] === 0 && shown[chunk + 1] === 0;
}
