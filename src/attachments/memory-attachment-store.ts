import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { parseOptions } from '../options/parse-options.js';
import type { Attachment, PinInput, Scope } from '../types.js';
import { parsePinInput } from './attachment-schema.js';
import type { AttachmentStore } from './attachment-store.js';
import { PinCapFloor, type PinCapOptions, pinCapShape } from './pin-cap-floor.js';
import { resolveTargetUri } from './resolve-target-uri.js';

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
  readonly #capFloor: PinCapFloor;

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
    const scope = scopeKey(parsed.scope);
    let inScope = this.#byScope.get(scope);
    if (!inScope) {
      inScope = new Map();
      this.#byScope.set(scope, inScope);
    }
    const existing = [...inScope.values()].find((pin) => targetKey(pin) === key);
    // Re-pinning a target updates that pin in place: same id, same addedAt, same place in the order.
    const attachment: Attachment = deepFreeze(
      structuredClone({
        ...parsed,
        id: existing?.id ?? randomUUID(),
        addedAt: existing?.addedAt ?? new Date().toISOString(),
      }),
    );
    this.#pins.set(attachment.id, attachment);
    inScope.set(attachment.id, attachment);
    return attachment;
  }

  async unpin(id: string): Promise<boolean> {
    const pin = this.#pins.get(id);
    if (!pin) return false;
    this.#pins.delete(id);
    this.#byScope.get(scopeKey(pin.scope))?.delete(id);
    return true;
  }

  async list(scope: Scope): Promise<Attachment[]> {
    const inScope = this.#byScope.get(scopeKey(scope));
    return inScope ? [...inScope.values()] : [];
  }

  async listAll(limit: number): Promise<Attachment[]> {
    return [...this.#pins.values()].slice(0, limit);
  }

  /** Frees the tokenizer the cap check created, if any; the pins stay readable. */
  async close(): Promise<void> {
    this.#capFloor.dispose();
  }
}

// --- Internal helpers ---

/** Freezes a plain record and everything in it (a pin is JSON-like: objects and arrays). */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function scopeKey(scope: Scope): string {
  return 'pipelineId' in scope ? `pipeline:${scope.pipelineId}` : `conversation:${scope.conversationId}`;
}

function targetKey(input: PinInput): string {
  return `${scopeKey(input.scope)}\u0000${input.server}\u0000${resolveTargetUri(input)}`;
}
