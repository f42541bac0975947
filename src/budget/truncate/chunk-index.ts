import { termsOf } from './score-chunks-bm25.js';
import { splitIntoChunks } from './split-into-chunks.js';

// Okapi BM25 defaults (as scoreChunksBm25).
const k1 = 1.2;
const b = 0.75;

/**
 * What `relevant` derives from a body once, whatever the query: its chunks (splitIntoChunks from
 * `from`), each chunk's term count and the body's term postings (BM25's statistics), and each
 * chunk's token count, filled in the first time a cut weighs the chunk. A turn then only scores
 * its query against it (scoreQuery). Kept in the derived cache by content (see DerivedCache.chunkIndex).
 */
export interface ChunkIndex {
  /** Length of the body it was built from: a cheap check that it is read with that body. */
  readonly bodyLength: number;
  readonly from: number;
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
  /**
   * BM25's length normalization of each chunk, `k1 · (1 − b + b · length / averageLength)`, its
   * length the terms it holds: all a query's score needs of the chunks' lengths.
   */
  readonly lengthNorms: Float64Array;
  /** Term → its postings, `postings[offsets[id]…offsets[id + 1])` as (chunk, frequency) pairs. */
  readonly termIds: ReadonlyMap<string, number>;
  readonly offsets: Uint32Array;
  readonly postings: Uint32Array;
  /** Tokens of each chunk on its own under `tokenizerName`; -1 until first counted. */
  readonly tokens: Int32Array;
  /** The pinned prefix's tokens (`body.slice(0, from)`); -1 until first counted. */
  pinnedTokens: number;
  /** About what it holds, for the derived cache's byte bound. */
  readonly bytes: number;
}

/** Chunks, term statistics and an empty token memo for `body` cut from `from`. Linear in the body. */
export function indexChunks(body: string, from: number): ChunkIndex {
  const chunks = splitIntoChunks(body, from);
  const count = chunks.length;
  const starts = new Uint32Array(count);
  const ends = new Uint32Array(count);
  const termLengths = new Uint32Array(count);
  // Each term's postings so far, (chunk, frequency) pairs: a term met again in the same chunk
  // adds to the last pair's frequency.
  const byTerm = new Map<string, number[]>();
  // An ASCII body's words are read in place (AsciiTerms): the same terms as termsOf's.
  const ascii = !hasNonAscii(body, from) && new AsciiTerms(byTerm);
  let totalLength = 0;
  for (let index = 0; index < count; index++) {
    const chunk = chunks[index] as { start: number; end: number };
    starts[index] = chunk.start;
    ends[index] = chunk.end;
    const add = (list: number[]) => {
      if (list[list.length - 2] === index) list[list.length - 1] = (list[list.length - 1] as number) + 1;
      else list.push(index, 1);
    };
    let terms = 0;
    if (ascii) terms = ascii.eachTerm(body, chunk.start, chunk.end, add);
    else {
      for (const term of termsOf(body.slice(chunk.start, chunk.end))) {
        let list = byTerm.get(term);
        if (!list) {
          list = [];
          byTerm.set(term, list);
        }
        add(list);
        terms++;
      }
    }
    termLengths[index] = terms;
    totalLength += terms;
  }
  const termIds = new Map<string, number>();
  const offsets = new Uint32Array(byTerm.size + 1);
  let pairs = 0;
  for (const list of byTerm.values()) pairs += list.length;
  const postings = new Uint32Array(pairs);
  let id = 0;
  let at = 0;
  let termBytes = 0;
  for (const [term, list] of byTerm) {
    termIds.set(term, id);
    offsets[id] = at;
    postings.set(list, at);
    at += list.length;
    id++;
    // The key (UTF-16) and a map entry.
    termBytes += 2 * term.length + 40;
  }
  offsets[id] = at;
  // As scoreChunksBm25 computes it: the same sum in the same order, the same quotient.
  const averageLength = totalLength / count || 1;
  const lengthNorms = new Float64Array(count);
  for (let index = 0; index < count; index++)
    lengthNorms[index] = k1 * (1 - b + (b * (termLengths[index] as number)) / averageLength);
  return {
    bodyLength: body.length,
    from,
    starts,
    ends,
    lengthNorms,
    termIds,
    offsets,
    postings,
    tokens: new Int32Array(count).fill(-1),
    pinnedTokens: -1,
    bytes: 256 + termBytes + 4 * (offsets.length + postings.length) + 20 * count,
  };
}

/**
 * BM25 score of each chunk of `index` for the query: what scoreChunksBm25 gives for the same
 * chunks, bit for bit (each chunk's terms are added in the query's order, as there), in time
 * proportional to the postings of the query's terms rather than to the body.
 */
export function scoreQuery(index: ChunkIndex, query: string): Float64Array {
  const count = index.starts.length;
  const scores = new Float64Array(count);
  if (count === 0) return scores;
  const { postings, lengthNorms } = index;
  for (const term of queryTermsOf(query)) {
    const id = index.termIds.get(term);
    if (id === undefined) continue;
    const from = index.offsets[id] as number;
    const to = index.offsets[id + 1] as number;
    const containing = (to - from) / 2;
    const idf = Math.log(1 + (count - containing + 0.5) / (containing + 0.5));
    for (let at = from; at < to; at += 2) {
      const chunk = postings[at] as number;
      const frequency = postings[at + 1] as number;
      const norm = frequency + (lengthNorms[chunk] as number);
      scores[chunk] = (scores[chunk] as number) + (idf * frequency * (k1 + 1)) / norm;
    }
  }
  return scores;
}

// --- Internal helpers ---

// Any UTF-16 code unit past ASCII (surrogates too).
const nonAsciiPattern = /[\u0080-\uffff]/g;

function hasNonAscii(body: string, from: number): boolean {
  nonAsciiPattern.lastIndex = from;
  return nonAsciiPattern.test(body);
}

/**
 * The terms of ASCII text as termsOf finds them (runs of letters, digits and `_`, lower-cased,
 * of two characters or more), read in place: each word is hashed as it is scanned (FNV-1a) and
 * found in an open-addressing table of the terms met so far, so a string is made only for a
 * new term. termsOf's regular expression and its string per word were half of a new body's
 * index (16 KB: 390 µs, 210 of them in termsOf).
 */
class AsciiTerms {
  readonly #byTerm: Map<string, number[]>;
  #slots = new Int32Array(1024).fill(-1);
  readonly #terms: string[] = [];
  readonly #hashes: number[] = [];
  readonly #lists: number[][] = [];

  constructor(byTerm: Map<string, number[]>) {
    this.#byTerm = byTerm;
  }

  /** Calls `add` with the postings list of each term of `text[start, end)`, in order; answers how many. */
  eachTerm(text: string, start: number, end: number, add: (list: number[]) => void): number {
    let terms = 0;
    let wordStart = -1;
    let hash = 0;
    for (let at = start; at <= end; at++) {
      const code = at < end ? text.charCodeAt(at) : 0;
      const lower = lowerAscii(code);
      if ((lower >= 0x61 && lower <= 0x7a) || (code >= 0x30 && code <= 0x39) || code === 0x5f) {
        if (wordStart < 0) {
          wordStart = at;
          hash = 0x811c9dc5;
        }
        hash = Math.imul(hash ^ lower, 0x01000193);
      } else if (wordStart >= 0) {
        if (at - wordStart > 1) {
          add(this.#listOf(text, wordStart, at, hash >>> 0));
          terms++;
        }
        wordStart = -1;
      }
    }
    return terms;
  }

  /** The postings list of the lower-cased word `text[start, end)`, made if it is new. */
  #listOf(text: string, start: number, end: number, hash: number): number[] {
    const mask = this.#slots.length - 1;
    let slot = hash & mask;
    for (let at = this.#slots[slot] as number; at !== -1; at = this.#slots[slot] as number) {
      if (this.#hashes[at] === hash && sameWord(this.#terms[at] as string, text, start, end))
        return this.#lists[at] as number[];
      slot = (slot + 1) & mask;
    }
    const term = text.slice(start, end).toLowerCase();
    const list: number[] = [];
    const id = this.#terms.length;
    this.#terms.push(term);
    this.#hashes.push(hash);
    this.#lists.push(list);
    this.#byTerm.set(term, list);
    this.#slots[slot] = id;
    // At most half full: probes stay short.
    if (2 * this.#terms.length > this.#slots.length) this.#rehash();
    return list;
  }

  #rehash(): void {
    const slots = new Int32Array(2 * this.#slots.length).fill(-1);
    const mask = slots.length - 1;
    for (const [id, hash] of this.#hashes.entries()) {
      let slot = hash & mask;
      while (slots[slot] !== -1) slot = (slot + 1) & mask;
      slots[slot] = id;
    }
    this.#slots = slots;
  }
}

/** An ASCII capital's small letter; any other code as it is. */
function lowerAscii(code: number): number {
  return code >= 0x41 && code <= 0x5a ? code | 0x20 : code;
}

/** Whether `term` is `text[start, end)` lower-cased (ASCII). */
function sameWord(term: string, text: string, start: number, end: number): boolean {
  if (term.length !== end - start) return false;
  for (let at = 0; at < term.length; at++) {
    if (term.charCodeAt(at) !== lowerAscii(text.charCodeAt(start + at))) return false;
  }
  return true;
}

// The last query's terms: a turn scores one message against each of its attachments' indexes.
let lastQuery: { readonly query: string; readonly terms: readonly string[] } | undefined;

/** The query's distinct terms, in the order they first appear (the order scores are summed in). */
function queryTermsOf(query: string): readonly string[] {
  if (lastQuery?.query !== query) lastQuery = { query, terms: [...new Set(termsOf(query))] };
  return lastQuery.terms;
}
