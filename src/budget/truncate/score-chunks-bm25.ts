import type { TextChunk } from './split-into-chunks.js';

// Okapi BM25 defaults.
const k1 = 1.2;
const b = 0.75;

// Words are letter/digit runs; scripts written without spaces count each character as a term.
const termPattern = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]|[\p{L}\p{N}_]+/gu;

/** Lower-cased terms of a text, for BM25. */
export function termsOf(text: string): string[] {
  return (text.toLowerCase().match(termPattern) ?? []).filter((term) => term.length > 1 || term > '\u2e7f');
}

/**
 * BM25 score of each chunk for the query: how well the chunk matches the user's words,
 * weighting rare terms up and long chunks down. No model calls; linear in the text.
 */
export function scoreChunksBm25(text: string, chunks: readonly TextChunk[], query: string): number[] {
  const queryTerms = [...new Set(termsOf(query))];
  if (queryTerms.length === 0 || chunks.length === 0) return chunks.map(() => 0);
  const wanted = new Set(queryTerms);
  const frequencies: Map<string, number>[] = [];
  const lengths: number[] = [];
  const documentFrequency = new Map<string, number>();
  for (const chunk of chunks) {
    const terms = termsOf(text.slice(chunk.start, chunk.end));
    const counts = new Map<string, number>();
    for (const term of terms) if (wanted.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const term of counts.keys()) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
    frequencies.push(counts);
    lengths.push(terms.length);
  }
  const averageLength = lengths.reduce((sum, length) => sum + length, 0) / chunks.length || 1;
  return frequencies.map((counts, index) => {
    let score = 0;
    for (const term of queryTerms) {
      const frequency = counts.get(term) ?? 0;
      if (frequency === 0) continue;
      const containing = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (chunks.length - containing + 0.5) / (containing + 0.5));
      const norm = frequency + k1 * (1 - b + (b * (lengths[index] ?? 0)) / averageLength);
      score += (idf * frequency * (k1 + 1)) / norm;
    }
    return score;
  });
}
