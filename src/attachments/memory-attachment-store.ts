import { randomUUID } from 'node:crypto';
import type { Attachment, PinInput, Scope } from '../types.js';
import { parsePinInput } from './attachment-schema.js';
import type { AttachmentStore } from './attachment-store.js';
import { resolveTargetUri } from './resolve-target-uri.js';

/** Pins held in memory: for tests, demos and hosts that keep pins elsewhere. */
export class MemoryAttachmentStore implements AttachmentStore {
  readonly #pins = new Map<string, Attachment>();

  async pin(input: PinInput): Promise<Attachment> {
    const parsed = parsePinInput(input);
    // A template with missing arguments is refused now, not on some later turn.
    resolveTargetUri(parsed);
    const key = targetKey(parsed);
    for (const [id, existing] of this.#pins) {
      if (targetKey(existing) === key) this.#pins.delete(id);
    }
    const attachment: Attachment = structuredClone({
      ...parsed,
      id: randomUUID(),
      addedAt: new Date().toISOString(),
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
}

// --- Internal helpers ---

function scopeKey(scope: Scope): string {
  return 'pipelineId' in scope ? `pipeline:${scope.pipelineId}` : `conversation:${scope.conversationId}`;
}

function targetKey(input: PinInput): string {
  return `${scopeKey(input.scope)}\u0000${input.server}\u0000${resolveTargetUri(input)}`;
}
