import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { BudgetMemo, CountedBlock, FrameCost } from '../budget/composable-attachment.js';
import { detachedCopy } from '../budget/detached-copy.js';
import type { BodyMeasure } from '../budget/measure-body.js';
import type { ChunkIndex } from '../budget/truncate/chunk-index.js';
import type { ConvertedSection } from '../convert/convert-contents.js';
import type { ConverterRegistry } from '../convert/converter-registry.js';
import type { Conversion, ConversionMemo } from '../convert/prepare-attachment.js';
import { boundedByCount } from '../options/bounded-by-count.js';
import { parseOptions } from '../options/parse-options.js';
import { getQuietly } from './get-quietly.js';
import { heldTextBytes } from './held-text-bytes.js';
import { SegmentedLru } from './segmented-lru.js';

const derivedCacheOptionsSchema = z.strictObject({
  /**
   * Bytes held at most (default 48 MiB, 1.5× a default 32 MiB content cache): half for
   * conversions, a quarter for token arrays, 3/32 each for renderings and whole turns, 1/16 for
   * `relevant`'s chunk indexes. A conversion's text is counted as V8 holds it (see
   * heldTextBytes), a rendering's at two bytes a character, and each entry its key and a fixed
   * overhead.
   */
  maxBytes: z
    .number()
    .int()
    .positive()
    .default(48 * 1024 * 1024),
});

export type DerivedCacheOptions = z.input<typeof derivedCacheOptionsSchema>;

// Each kind's probation segment: an eighth of its share (see SegmentedLru).
const probationShare = 8;
// Frame costs kept, by count: 10,000 held 3.6 MiB (a heap snapshot of the footprint's turns; the
// key names the frame's facts), and a miss costs a few counts of short texts the tokenizer keeps
// anyway. 2,048 hold the frames of a pipeline of hundreds of pins and of its recent conversations.
const frameCostEntries = 2_048;
// What an entry holds beyond its derived bytes and its key: the objects around them and the
// LRU's own slots (measured in heap snapshots: about 300 to 600 bytes an entry, by kind).
const entryOverheadBytes = 256;

/**
 * What a turn derives from content that did not change: the converted, escaped form of a read
 * (keyed by the content's sha256 and the converters' identity) and how far its body has been
 * counted (keyed by that plus the model's capabilities and the tokenizer). Unchanged content
 * re-read after an invalidation, or served from the content cache, is not converted or
 * re-tokenized again.
 *
 * Admission (docs/caches.md): each kind is a main LRU with a probation segment of an eighth of
 * its share in front. What is derived from one body (conversions, token arrays, chunk indexes)
 * follows its content: a message attachment's waits on probation, a pin's enters main.
 * What is shaped by one turn (renderings under a share and cut, whole compositions) always starts
 * on probation and enters main when a later turn uses it: a stream of first turns, each with
 * shares and inputs of its own, churns through probation and evicts nothing a repeated turn uses.
 */
export class DerivedCache implements ConversionMemo, BudgetMemo {
  readonly #conversions: SegmentedLru<Conversion>;
  readonly #measures: SegmentedLru<BodyMeasure>;
  readonly #measuring = new Map<string, Promise<BodyMeasure>>();
  // A warm turn's renderings with their exact counts, and the costs of frames.
  readonly #renderings: SegmentedLru<CountedBlock>;
  readonly #frameCosts: LRUCache<string, FrameCost>;
  // Whole warm turns: the composition of a turn whose every input is unchanged.
  readonly #compositions: SegmentedLru<{ readonly blocks: readonly { readonly text: string }[] }>;
  // `relevant`'s chunks, term postings and chunk counts of each body (see chunk-index.ts).
  readonly #chunkIndexes: SegmentedLru<ChunkIndex>;

  constructor(options: DerivedCacheOptions = {}) {
    const { maxBytes } = parseOptions(derivedCacheOptionsSchema, options, 'derived');
    this.#renderings = segmented({
      maxSize: Math.floor((maxBytes * 3) / 32),
      // The block's text at two bytes a character, not read: a rendering is its frame and its
      // content joined, and reading it (heldTextBytes) would flatten it into a copy of content the
      // conversion already holds. Media parts share their data with the conversion.
      sizeCalculation: (rendered, key) => entryBytes(key, 2 * rendered.block.text.length),
    });
    this.#frameCosts = new LRUCache(boundedByCount(frameCostEntries));
    this.#compositions = segmented({
      maxSize: Math.floor((maxBytes * 3) / 32),
      // Its blocks' text (the renderings', at two bytes a character, not read: see above) and its
      // key, one line per attachment.
      sizeCalculation: (composed, key) =>
        entryBytes(
          key,
          composed.blocks.reduce((sum, block) => sum + 2 * block.text.length, 0),
        ),
    });
    // Converted text, the largest share.
    this.#conversions = segmented({
      maxSize: Math.floor(maxBytes / 2),
      sizeCalculation: (conversion, key) =>
        entryBytes(
          key,
          conversion.sections.reduce((sum, section) => sum + sizeOf(section), 0),
        ),
    });
    // An index's own estimate: postings, term keys and per-chunk arrays; chunk counts fill in place.
    this.#chunkIndexes = segmented({
      maxSize: Math.max(1, Math.floor(maxBytes / 16)),
      sizeCalculation: (index, key) => entryBytes(key, index.bytes),
    });
    // 4 bytes a token, about one token per 4 bytes of text.
    this.#measures = segmented({
      maxSize: Math.floor(maxBytes / 4),
      sizeCalculation: (measure, key) => entryBytes(key, measure.head.tokens.byteLength),
    });
  }

  /** The key of a read's conversion: its content hash and which converters convert it. */
  conversionKey(sha256: string, converters: ConverterRegistry | undefined): string {
    if (!converters) return `${sha256}:default`;
    let id = registryIds.get(converters);
    if (id === undefined) {
      id = ++lastRegistryId;
      registryIds.set(converters, id);
    }
    return `${sha256}:${id}.${converters.revision}`;
  }

  conversion(key: string): Conversion | undefined {
    return this.#conversions.get(key);
  }

  /** `probation`: a message attachment's conversion, likely used once. */
  keepConversion(key: string, converted: Conversion, probation = false): void {
    this.#conversions.set(key, converted, probation);
  }

  /**
   * A measure that covers `limitTokens`: complete, or counted past the limit. Looked up `again`
   * in the same turn, it is peeked at: a second lookup would move a message attachment's measure
   * off probation (a first turn often measures its attachment twice: to a cut's share, then on).
   */
  #covering(key: string, limitTokens: number, again: boolean): BodyMeasure | undefined {
    const measure = again ? this.#measures.peek(key) : this.#measures.get(key);
    if (!measure) return undefined;
    return measure.head.complete || measure.head.tokens.length > limitTokens ? measure : undefined;
  }

  /**
   * The measure for `key` covering `limitTokens`: cached, or computed once however many turns
   * ask at the same time (concurrent turns over the same pins share one count).
   */
  async measureOnce(
    key: string,
    limitTokens: number,
    compute: () => Promise<BodyMeasure>,
    probation = false,
    again = false,
  ): Promise<BodyMeasure> {
    const cached = this.#covering(key, limitTokens, again);
    if (cached) return cached;
    const flightKey = `${key}#${limitTokens}`;
    let flight = this.#measuring.get(flightKey);
    if (!flight) {
      flight = compute().then(
        (measure) => {
          this.#measuring.delete(flightKey);
          this.#keep(key, measure, probation);
          return measure;
        },
        (error: unknown) => {
          this.#measuring.delete(flightKey);
          throw error;
        },
      );
      this.#measuring.set(flightKey, flight);
    }
    return flight;
  }

  #keep(key: string, measure: BodyMeasure, probation: boolean): void {
    const current = this.#measures.peek(key);
    // Keep whichever covers more: a later, shorter count must not replace a longer one.
    if (current && (current.head.complete || current.head.tokens.length >= measure.head.tokens.length))
      return;
    this.#measures.set(key, measure, probation);
  }

  /** A rendering of unchanged content under the same share, cut, query and model, with its count. */
  rendering(key: string): CountedBlock | undefined {
    return this.#renderings.get(key);
  }

  /** Kept on probation: a later turn's use of it moves it to main. */
  keepRendering(key: string, rendered: CountedBlock): void {
    this.#renderings.set(key, rendered, true);
  }

  composition<Composed>(key: string): Composed | undefined {
    return this.#compositions.get(key) as Composed | undefined;
  }

  keepComposition<Composed extends { readonly blocks: readonly { readonly text: string }[] }>(
    key: string,
    composed: Composed,
  ): void {
    this.#compositions.set(key, composed, true);
  }

  /** A body's chunk index for `relevant` (keyed by content, model media, tokenizer and where chunks start). */
  chunkIndex(key: string, build: () => ChunkIndex, probation = false): ChunkIndex {
    const kept = this.#chunkIndexes.get(key);
    if (kept) return kept;
    const index = build();
    this.#chunkIndexes.set(key, index, probation);
    return index;
  }

  frameCost(key: string): FrameCost | undefined {
    return getQuietly(this.#frameCosts, key);
  }

  keepFrameCost(key: string, cost: FrameCost): void {
    // A string of its own, not the tree of parts it was joined from (see SegmentedLru.set).
    this.#frameCosts.set(detachedCopy(key), cost);
  }

  /** What each kind holds, in the bytes its bound counts (docs/caches.md states each kind's bound). */
  get bytesHeldByKind(): {
    readonly conversions: number;
    readonly measures: number;
    readonly renderings: number;
    readonly compositions: number;
    readonly chunkIndexes: number;
    readonly frameCosts: number;
  } {
    return {
      conversions: this.#conversions.calculatedSize,
      measures: this.#measures.calculatedSize,
      renderings: this.#renderings.calculatedSize,
      compositions: this.#compositions.calculatedSize,
      chunkIndexes: this.#chunkIndexes.calculatedSize,
      frameCosts: this.#frameCosts.size,
    };
  }

  get bytesHeld(): number {
    return (
      this.#conversions.calculatedSize +
      this.#measures.calculatedSize +
      this.#renderings.calculatedSize +
      this.#compositions.calculatedSize +
      this.#chunkIndexes.calculatedSize
    );
  }
}

// --- Internal helpers ---

/** One kind's store: its share, an eighth of it on probation. */
function segmented<Value extends {}>(options: {
  maxSize: number;
  sizeCalculation: (value: Value, key: string) => number;
}): SegmentedLru<Value> {
  return new SegmentedLru({ ...options, probationMaxSize: Math.floor(options.maxSize / probationShare) });
}

const registryIds = new WeakMap<ConverterRegistry, number>();
let lastRegistryId = 0;

/** What an entry holds: what it derives, its key, and the objects that hold them. */
function entryBytes(key: string, derivedBytes: number): number {
  return derivedBytes + heldTextBytes(key) + entryOverheadBytes;
}

function sizeOf(section: ConvertedSection): number {
  // A lazily escaped text by its raw text: reading `text` would escape it whole. Escaped, it is
  // the raw text itself unless escaping changed something (then a copy a little longer).
  if (section.kind === 'text') return heldTextBytes(section.escaped?.raw ?? section.text);
  if (section.kind === 'media') return section.data.length;
  return 64;
}
