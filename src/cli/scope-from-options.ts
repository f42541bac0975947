import type { Scope } from '../index.js';
import type { CliOptionValues } from './cli-options.js';
import { UsageError } from './usage-error.js';

/** Exactly one of --pipeline P or --conversation C, as a pin scope. */
export function scopeFromOptions(values: CliOptionValues): Scope {
  if ((values.pipeline === undefined) === (values.conversation === undefined)) {
    throw new UsageError('give exactly one of --pipeline P or --conversation C');
  }
  return values.pipeline !== undefined
    ? { pipelineId: values.pipeline }
    : { conversationId: values.conversation ?? '' };
}
