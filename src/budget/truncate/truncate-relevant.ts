import { pinnedPrefix } from './pinned-prefix.js';
import { scoreChunksBm25 } from './score-chunks-bm25.js';
import { splitIntoChunks, type TextChunk } from './split-into-chunks.js';
import { truncateHead } from './truncate-head.js';
import type { TruncationStrategy } from './truncation-strategy.js';

// After this many chunks in a row that do not fit, the share is as full as it will get.
const maxMisses = 8;

/**
 * Keeps the chunks most relevant to the user's message (BM25 over paragraph/line chunks), in
 * document order, with a marker at every gap. Without a query, or when nothing matches, it
 * falls back to `head`. Offsets in its markers are proportional estimates (marked `~`): only
 * the chunks shown are counted.
 */
export const truncateRelevant: TruncationStrategy = async (request) => {
  const { body, tokenizer } = request;
  const pinned = await pinnedPrefix(request);
  const chunks = splitIntoChunks(body, pinned.text.length);
  const scores = scoreChunksBm25(body, chunks, request.query ?? '');
  if (!scores.some((score) => score > 0)) return truncateHead(request);

  const order = chunks.map((_, index) => index).sort((a, c) => (scores[c] ?? 0) - (scores[a] ?? 0) || a - c);
  const chosen = new Map<number, number>();
  let used = pinned.tokens;
  let misses = 0;
  for (const index of order) {
    if (misses >= maxMisses || used >= request.contentTokens) break;
    const chunk = chunks[index] as TextChunk;
    const tokens = await tokenizer.count(body.slice(chunk.start, chunk.end));
    const extraMarkers = gapsWith(chosen, index, chunks.length) - gapsWith(chosen, undefined, chunks.length);
    // The plan already paid for one marker (everything elided is one gap); a chunk that splits
    // a gap in two pays for the second.
    const cost = tokens + Math.max(0, extraMarkers) * request.markerTokens;
    if (used + cost > request.contentTokens) {
      misses++;
      continue;
    }
    chosen.set(index, tokens);
    used += cost;
    misses = 0;
  }
  if (chosen.size === 0) return truncateHead(request);

  const perChar = request.originalTokens / Math.max(1, body.length);
  const tokenAt = (char: number) => Math.round(char * perChar);
  const parts = [pinned.text];
  const elided: { startToken: number; endToken: number }[] = [];
  let cursor = pinned.text.length;
  for (let index = 0; index <= chunks.length; index++) {
    const chunk = chunks[index];
    if (chunk && !chosen.has(index)) continue;
    const gapEnd = chunk ? chunk.start : body.length;
    if (gapEnd > cursor) {
      const range = {
        startToken: tokenAt(cursor),
        endToken: chunk ? tokenAt(gapEnd) : request.originalTokens,
      };
      elided.push(range);
      parts.push(request.marker(range, true));
    }
    if (chunk) {
      parts.push(body.slice(chunk.start, chunk.end));
      cursor = chunk.end;
    }
  }
  return { text: parts.join(''), elided };
};

// --- Internal helpers ---

/** Elided ranges if `chosen` (plus `adding`) were shown. */
function gapsWith(chosen: ReadonlyMap<number, number>, adding: number | undefined, total: number): number {
  let gaps = 0;
  let inGap = false;
  for (let index = 0; index < total; index++) {
    const shown = chosen.has(index) || index === adding;
    if (!shown && !inGap) gaps++;
    inGap = !shown;
  }
  return gaps;
}
