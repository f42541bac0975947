import type { Attachment, Scope } from '../index.js';

/** `pipeline:support` / `conversation:c-42`. */
export function describeScope(scope: Scope): string {
  return 'pipelineId' in scope ? `pipeline:${scope.pipelineId}` : `conversation:${scope.conversationId}`;
}

/** `gitnexus://repos`, or `gitnexus://repo/{name}/context name=acme-shop`. */
export function describeTarget(pin: Attachment): string {
  if ('uri' in pin) return pin.uri;
  const args = Object.entries(pin.arguments).map(
    ([key, value]) => `${key}=${typeof value === 'string' ? value : value.join(',')}`,
  );
  return [pin.template, ...args].join(' ');
}
