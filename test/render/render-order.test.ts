import { describe, expect, it } from 'vitest';
import { renderOrder } from '../../src/render/render-order.js';

describe('renderOrder', () => {
  it('puts pipeline pins first, then conversation, then message; within a scope, the given order', () => {
    expect(
      renderOrder(['message', 'conversation', 'pipeline', 'message', 'pipeline', 'conversation', 'pipeline']),
    ).toEqual([2, 4, 6, 1, 5, 0, 3]);
  });

  it('keeps a single scope in the given order, however long', () => {
    expect(renderOrder(['message', 'message', 'message', 'message', 'message'])).toEqual([0, 1, 2, 3, 4]);
    expect(renderOrder([])).toEqual([]);
  });
});
