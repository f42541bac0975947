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
 * deep-frozen and listed by scope, so listing a scope (every turn) neither scans other scopes'
 * pins nor copies any: callers get the stored list, which nothing can change.
 */
export class MemoryAttachmentStore implements AttachmentStore {
  /** Every pin by id, in the order added. */
  readonly #pins = new Map<string, Attachment>();
  /**
   * The same pins by scope key, frozen, in the order added: a turn lists its scopes every turn and
   * gets the same array while they hold the same pins; a write replaces its scope's array. Scopes
   * without pins are not kept (a host may have a conversation per user and no pins in it).
   */
  readonly #byScope = new Map<string, readonly Attachment[]>();
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
    const inScope = this.#byScope.get(scope) ?? noPins;
    const at = inScope.findIndex((pin) => targetKey(pin) === key);
    const existing = inScope[at];
    // Re-pinning a target updates that pin in place: same id, same addedAt, same place in the order.
    // Kept as its JSON reads back, as the row stores keep it: a pin is plain data, and JSON.parse's
    // is its compact form (flat strings, short ones shared, objects sized to their fields): 2,100
    // bytes for a conversation's 5 pins, against 2,460 through structuredClone (heap after GC,
    // 10,000 conversations pinning 5 notes each). Keeping `parsed` itself cost 1.7 KiB a
    // conversation more than structuredClone in the footprint's turns.
    const attachment: Attachment = deepFreeze(
      JSON.parse(
        JSON.stringify({
          ...parsed,
          id: existing?.id ?? randomUUID(),
          addedAt: existing?.addedAt ?? new Date().toISOString(),
          version: String(++this.#writes),
        }),
      ),
    );
    this.#pins.set(attachment.id, attachment);
    const pins = existing ? inScope.with(at, attachment) : [...inScope, attachment];
    this.#byScope.set(scope, Object.freeze(pins));
    return attachment;
  }

  async unpin(id: string): Promise<boolean> {
    parsePinId(id);
    const pin = this.#pins.get(id);
    if (!pin) return false;
    this.#pins.delete(id);
    const scope = scopeKeyOf(pin.scope);
    const rest = (this.#byScope.get(scope) ?? noPins).filter((kept) => kept.id !== id);
    if (rest.length === 0) this.#byScope.delete(scope);
    else this.#byScope.set(scope, Object.freeze(rest));
    return true;
  }

  async list(scope: Scope): Promise<readonly Attachment[]> {
    parseScope(scope);
    return this.#byScope.get(scopeKeyOf(scope)) ?? noPins;
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
