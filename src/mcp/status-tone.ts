import type { TraceStatus } from '../types.js';
import type { ConnectionState } from './server-status.js';

/** How a status reads to a person: fine, worth a look, or wrong; `plain` says nothing either way. */
export type StatusTone = 'good' | 'warn' | 'bad' | 'plain';

/**
 * The tone of every trace status and connection state, for the CLI's colours and the
 * inspector's badges alike. A record over both unions: a status added to either type does not
 * compile until it has a tone here.
 */
export const statusTones: Readonly<Record<TraceStatus | ConnectionState, StatusTone>> = {
  injected: 'good',
  connected: 'good',
  truncated: 'warn',
  stale: 'warn',
  'omitted-budget': 'warn',
  'input-required': 'warn',
  connecting: 'warn',
  disconnected: 'warn',
  error: 'bad',
  timeout: 'bad',
  denied: 'bad',
  unsupported: 'bad',
  failed: 'bad',
  omitted: 'plain',
  idle: 'plain',
  closed: 'plain',
};

/** The tone of a status as printed (any other text is `plain`). */
export function toneOf(status: string): StatusTone {
  return Object.hasOwn(statusTones, status) ? statusTones[status as keyof typeof statusTones] : 'plain';
}
