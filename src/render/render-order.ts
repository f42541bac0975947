import type { ScopeKind } from '../types.js';

const scopeOrder = { pipeline: 0, conversation: 1, message: 2 } as const;

/**
 * Rendering puts the stablest scope first (pipeline, then conversation, then message) so an
 * unchanged set of pins renders a byte-identical prefix across turns; within a scope, the
 * given (budget rank) order. Returns positions into `scopes`.
 */
export function renderOrder(scopes: readonly ScopeKind[]): number[] {
  return (
    scopes
      .map((scope, index) => ({ index, rank: scopeOrder[scope] }))
      // Array.prototype.sort is stable (ES2019): within a scope the given order stays.
      .sort((a, b) => a.rank - b.rank)
      .map(({ index }) => index)
  );
}
