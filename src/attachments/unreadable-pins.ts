import type { ContextError } from '../errors.js';

// Pins a row store built from a row it could not read wholly, with the reason. Kept beside the
// pin, not in it: a pin's shape is the public Attachment, and hosts' own stores never mark one.
const unreadable = new WeakMap<object, ContextError>();

/**
 * Marks a pin whose row could not be read wholly (template arguments that are not JSON): a turn
 * fails that pin's entry with `error` and injects the rest, where throwing from `list()` would
 * fail every turn of the scope — a pipeline's pins are in every conversation's turn.
 */
export function markUnreadable<Pin extends object>(pin: Pin, error: ContextError): Pin {
  unreadable.set(pin, error);
  return pin;
}

/** Why a pin cannot be resolved as stored, if a store marked it so. */
export function unreadableErrorOf(pin: object): ContextError | undefined {
  return unreadable.get(pin);
}
