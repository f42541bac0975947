import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { parseOptions } from '../options/parse-options.js';
import type { Attachment, PinInput, Scope } from '../types.js';
import { parsePinInput } from './attachment-schema.js';
import type { AttachmentStore } from './attachment-store.js';
import { PinCapFloor, type PinCapOptions, pinCapShape } from './pin-cap-floor.js';
import { resolveTargetUri } from './resolve-target-uri.js';

/** Pins held in memory: for tests, demos and hosts that keep pins elsewhere. */
export class MemoryAttachmentStore implements AttachmentStore {
  readonly #pins = new Map<string, Attachment>();
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
    const existing = [...this.#pins.values()].find((pin) => targetKey(pin) === key);
    // Re-pinning a target updates that pin in place: same id, same addedAt, same place in the order.
    const attachment: Attachment = structuredClone({
      ...parsed,
      id: existing?.id ?? randomUUID(),
      addedAt: existing?.addedAt ?? new Date().toISOString(),
    });
    this.#pins.set(attachment.id, attachment);
    return structuredClone(attachment);
  }

  async unpin(id: string): Promise<boolean> {
    return this.#pins.delete(id);
  }

  async list(scope: Scope): Promise<Attachment[]> {
    const key = scopeKey(scope);
    return [...this.#pins.values()]
      .filter((pin) => scopeKey(pin.scope) === key)
      .map((pin) => structuredClone(pin));
  }

  async listAll(limit: number): Promise<Attachment[]> {
    return [...this.#pins.values()].slice(0, limit).map((pin) => structuredClone(pin));
  }

  /** Frees the tokenizer the cap check created, if any; the pins stay readable. */
  async close(): Promise<void> {
    this.#capFloor.dispose();
  }
}

// --- Internal helpers ---

function scopeKey(scope: Scope): string {
  return 'pipelineId' in scope ? `pipeline:${scope.pipelineId}` : `conversation:${scope.conversationId}`;
}

function targetKey(input: PinInput): string {
  return `${scopeKey(input.scope)}\u0000${input.server}\u0000${resolveTargetUri(input)}`;
}
