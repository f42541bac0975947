import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { parseOptions } from '../options/parse-options.js';
import type { Attachment, PinInput, Scope } from '../types.js';
import { parseListLimit, parsePinId, parsePinInput, parseScope } from './attachment-schema.js';
import type { AttachmentStore } from './attachment-store.js';
import { deepFreeze } from './deep-freeze.js';
import { PinCapFloor, type PinCapOptions, pinCapShape } from './pin-cap-floor.js';
import { resolveTargetUri } from './resolve-target-uri.js';
import { scopeKeyOf } from './scope-key.js';

/**
 * Pins held in memory: for tests, demos and hosts that keep pins elsewhere. Pins are kept
 * deep-frozen and indexed by scope, so listing a scope (every turn) neither scans other scopes'
 * pins nor copies any: callers get the stored records, which nothing can change.
 */
export class MemoryAttachmentStore implements AttachmentStore {
  /** Every pin by id, in the order added. */
  readonly #pins = new Map<string, Attachment>();
  /** The same pins by scope key, then by id, in the order added. */
  readonly #byScope = new Map<string, Map<string, Attachment>>();
  /**
   * Each scope's pins as last listed, frozen, until a pin of that scope changes: a turn lists its
   * scopes every turn, and gets the same array while they hold the same pins (no copy per turn).
   * Scopes without pins are not kept (a host may have a conversation per user and no pins in it).
   */
  readonly #listed = new Map<string, readonly Attachment[]>();
  readonly #capFloor: PinCapFloor;
  /** Writes so far: each pin written takes the next as its version (unique within the store). */
  #writes = 0;

  /** `minTokens` and `tokenizer`: the provider's, so that pin caps are checked as its planner would. */
  constructor(options: PinCapOptions = {}) {
    this.#capFloor = new PinCapFloor(parseOptions(z.strictObject(pinCapShape), options, 'options'));
  }

  async pin(input: PinInput): Promise<Attachment> {
    const parsed = parsePinInput(input);
    // A template with missing arguments is refused now, not on some later turn.
    const targetUri = resolveTargetUri(parsed);
    await this.#capFloor.check(parsed, targetUri);
    const key = targetKey(parsed);
    const scope = scopeKeyOf(parsed.scope);
    let inScope = this.#byScope.get(scope);
    if (!inScope) {
      inScope = new Map();
      this.#byScope.set(scope, inScope);
    }
    const existing = [...inScope.values()].find((pin) => targetKey(pin) === key);
    // Re-pinning a target updates that pin in place: same id, same addedAt, same place in the order.
    // A copy, though nothing in `parsed` is the caller's: the copy is also the compact form (flat
    // strings where a host's were built by concatenation, objects of a fixed shape), 1.7 KiB less
    // a conversation of 5 pins than `parsed` itself (footprint driver, 10,000 conversations).
    const attachment: Attachment = deepFreeze(
      structuredClone({
        ...parsed,
        id: existing?.id ?? randomUUID(),
        addedAt: existing?.addedAt ?? new Date().toISOString(),
        version: String(++this.#writes),
      }),
    );
    this.#pins.set(attachment.id, attachment);
    inScope.set(attachment.id, attachment);
    this.#listed.delete(scope);
    return attachment;
  }

  async unpin(id: string): Promise<boolean> {
    parsePinId(id);
    const pin = this.#pins.get(id);
    if (!pin) return false;
    this.#pins.delete(id);
    const scope = scopeKeyOf(pin.scope);
    const inScope = this.#byScope.get(scope);
    inScope?.delete(id);
    if (inScope?.size === 0) this.#byScope.delete(scope);
    this.#listed.delete(scope);
    return true;
  }

  async list(scope: Scope): Promise<readonly Attachment[]> {
    parseScope(scope);
    const key = scopeKeyOf(scope);
    const listed = this.#listed.get(key);
    if (listed) return listed;
    const inScope = this.#byScope.get(key);
    if (!inScope) return noPins;
    const pins = Object.freeze([...inScope.values()]);
    this.#listed.set(key, pins);
    return pins;
  }

  async listAll(limit: number): Promise<Attachment[]> {
    parseListLimit(limit);
    return [...this.#pins.values()].slice(0, limit);
  }

  /** Frees the tokenizer the cap check created, if any; the pins stay readable. */
  async close(): Promise<void> {
    this.#capFloor.dispose();
  }
}

// --- Internal helpers ---

const noPins: readonly Attachment[] = Object.freeze([]);

function targetKey(input: PinInput): string {
  return `${scopeKeyOf(input.scope)}\u0000${input.server}\u0000${resolveTargetUri(input)}`;
}
