import type { ScopeKind } from '../types.js';

const stablestFirst: readonly ScopeKind[] = ['pipeline', 'conversation', 'message'];

/**
 * Rendering puts the stablest scope first (pipeline, then conversation, then message) so an
 * unchanged set of pins renders a byte-identical prefix across turns; within a scope, the
 * given (budget rank) order. Returns positions into `scopes`.
 */
export function renderOrder(scopes: readonly ScopeKind[]): number[] {
  // One pass per scope, in order: no pair per attachment and no sort (every turn renders every one).
  const order = new Array<number>(scopes.length);
  let next = 0;
  for (const scope of stablestFirst) {
    for (let index = 0; index < scopes.length; index++) if (scopes[index] === scope) order[next++] = index;
  }
  return order;
}
