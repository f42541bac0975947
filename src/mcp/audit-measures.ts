import type { AuditMeasure } from '../audit/audit-log.js';
import { textBytesOf } from '../convert/text-bytes.js';
import type { CappedReadResult } from './cap-read-result.js';
import type { CallOptions } from './operation-schemas.js';

// What the registry's audit records measure of each operation's result, and who the actor is.

export function countItems<Key extends string>(key: Key) {
  return (result: Record<Key, readonly unknown[]>): AuditMeasure => ({ items: result[key].length });
}

export function nothing(): AuditMeasure {
  return {};
}

/** Bytes of content as read: text as UTF-8, blobs decoded. */
export function contentBytes(result: CappedReadResult): AuditMeasure {
  let bytes = 0;
  for (const item of result.contents) {
    if ('text' in item && typeof item.text === 'string') bytes += textBytesOf(item);
    else if ('blob' in item && typeof item.blob === 'string') bytes += Buffer.byteLength(item.blob, 'base64');
  }
  return { bytes };
}

export function resultBytes(result: unknown): AuditMeasure {
  return { bytes: Buffer.byteLength(JSON.stringify(result) ?? '') };
}

export function namesOf(args: unknown): string[] | undefined {
  return typeof args === 'object' && args !== null ? Object.keys(args).sort() : undefined;
}

/** The actor named in call options, if well formed (a malformed one fails the call's own validation). */
export function validActor(options: CallOptions): CallOptions['actor'] {
  const actor = (options as { actor?: unknown } | undefined)?.actor as CallOptions['actor'] | undefined;
  return typeof actor?.pipelineId === 'string' ? actor : undefined;
}
