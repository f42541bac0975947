import { LRUCache } from 'lru-cache';
import { detachedCopy } from '../budget/detached-copy.js';
import { getQuietly } from './get-quietly.js';

export interface SegmentedLruOptions<Value extends {}> {
  /** Bytes (as `sizeCalculation` counts them) both segments hold at most. */
  readonly maxSize: number;
  /** Of `maxSize`, what the probation segment holds at most; 0: no probation, one plain LRU. */
  readonly probationMaxSize: number;
  readonly sizeCalculation: (value: Value, key: string) => number;
  /** An entry leaves the cache (evicted, deleted, replaced, cleared); not called when one is promoted. */
  readonly dispose?: (value: Value, key: string, reason: LRUCache.DisposeReason) => void;
}

/** Where `set` put an entry: a segment, or nowhere (too large for probation: its key is remembered). */
export type Admitted = 'main' | 'probation' | 'remembered';

// Keys pushed out of probation unread, remembered without their values (a 2Q cache's "A1out"):
// bounded by their length, 128 KiB of keys per cache (about 1,000 keys of ~60 characters).
const rememberedMaxSize = 128 * 1024;
const rememberedOverhead = 64;

/**
 * Two lru-cache LRUs in one bound: a main segment, and a probation segment in front of it for
 * entries likely used once. An entry set on probation moves to main when a `get` finds it there; pushed
 * out of probation unused, only its key is remembered, and setting that key again admits it to
 * main. Each segment evicts only its own entries: what churns through probation never evicts
 * what main holds. See docs/caches.md.
 */
export class SegmentedLru<Value extends {}> {
  readonly #main: LRUCache<string, Value>;
  readonly #probation: LRUCache<string, Value> | undefined;
  readonly #remembered: LRUCache<string, true> | undefined;
  /** The entry moving from probation to main: leaving probation does not dispose of it. */
  #promoting: Value | undefined;
  #promotions = 0;
  readonly #sizeCalculation: (value: Value, key: string) => number;

  constructor(options: SegmentedLruOptions<Value>) {
    const { dispose, sizeCalculation } = options;
    this.#sizeCalculation = sizeCalculation;
    this.#main = new LRUCache<string, Value>({
      maxSize: Math.max(1, options.maxSize - options.probationMaxSize),
      sizeCalculation,
      ...(dispose && { dispose }),
    });
    if (options.probationMaxSize <= 0) return;
    this.#probation = new LRUCache<string, Value>({
      maxSize: options.probationMaxSize,
      sizeCalculation,
      dispose: (value, key, reason) => {
        if (value === this.#promoting) return;
        dispose?.(value, key, reason);
        if (reason === 'evict') this.#remembered?.set(key, true);
      },
    });
    this.#remembered = new LRUCache<string, true>({
      maxSize: rememberedMaxSize,
      sizeCalculation: (_, key) => key.length + rememberedOverhead,
    });
  }

  /** The entry, made most recent; found on probation, it moves to main. */
  get(key: string): Value | undefined {
    return getQuietly(this.#main, key) ?? this.#promote(key);
  }

  /** The entry, wherever it is, without making it more recent or moving it. */
  peek(key: string): Value | undefined {
    return this.#main.peek(key) ?? this.#probation?.peek(key);
  }

  /**
   * Keeps `value`: in main, or on probation when asked and its key is neither in main already nor
   * remembered from probation (then this is its second use: it enters main). An entry too large
   * for probation is not kept, only its key remembered. The key is kept as a string of its own:
   * keys are built by joining parts, and V8 keeps such a string as a tree of its parts (see
   * detachedCopy).
   */
  set(joinedKey: string, value: Value, probation: boolean): Admitted {
    const key = detachedCopy(joinedKey);
    const segment = this.#probation;
    if (probation && segment && !this.#main.has(key)) {
      if (this.#remembered?.delete(key) !== true) {
        if (this.#sizeCalculation(value, key) > segment.maxSize) {
          segment.delete(key);
          this.#remembered?.set(key, true);
          return 'remembered';
        }
        segment.set(key, value);
        return 'probation';
      }
      this.#promotions++;
    }
    segment?.delete(key);
    this.#main.set(key, value);
    return 'main';
  }

  delete(key: string): boolean {
    const main = this.#main.delete(key);
    return (this.#probation?.delete(key) ?? false) || main;
  }

  clear(): void {
    this.#main.clear();
    this.#probation?.clear();
    this.#remembered?.clear();
  }

  /** The most `sizeCalculation` bytes an entry may have to be kept on probation (0 without one). */
  get probationMaxSize(): number {
    return this.#probation?.maxSize ?? 0;
  }

  get size(): number {
    return this.#main.size + (this.#probation?.size ?? 0);
  }

  /** Both segments' bytes. */
  get calculatedSize(): number {
    return this.#main.calculatedSize + this.probationSize;
  }

  /** The probation segment's bytes. */
  get probationSize(): number {
    return this.#probation?.calculatedSize ?? 0;
  }

  /** Entries moved to main: found on probation, or set again after probation let them go. */
  get promotions(): number {
    return this.#promotions;
  }

  #promote(key: string): Value | undefined {
    const value = this.#probation?.peek(key);
    if (value === undefined) return undefined;
    this.#promoting = value;
    try {
      this.#probation?.delete(key);
    } finally {
      this.#promoting = undefined;
    }
    this.#main.set(key, value);
    this.#promotions++;
    return value;
  }
}
