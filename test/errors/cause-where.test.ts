import { describe, expect, it } from 'vitest';
import { ContextError, causeWhere } from '../../src/errors.js';

describe('causeWhere', () => {
  it('finds the first error in the chain the test accepts, the error itself first', () => {
    const own = new ContextError('ENDPOINT_DENIED', 'denied');
    const wrapped = new Error('fetch failed', { cause: new TypeError('inner', { cause: own }) });
    expect(causeWhere(wrapped, ContextError.isInstance)).toBe(own);
    expect(causeWhere(own, ContextError.isInstance)).toBe(own);
    expect(causeWhere(wrapped, (error) => error instanceof TypeError)?.message).toBe('inner');
  });

  it('stops at a cause that is not an Error, at the depth bound, and on a cycle', () => {
    expect(causeWhere(new Error('outer', { cause: 'a string' }), () => false)).toBeUndefined();
    const deep = [1, 2, 3, 4, 5].reduce<Error>(
      (cause, n) => new Error(`level ${n}`, { cause }),
      new Error('bottom'),
    );
    expect(causeWhere(deep, (error) => error.message === 'bottom')).toBeUndefined();
    expect(causeWhere(deep, (error) => error.message === 'bottom', 6)?.message).toBe('bottom');
    // A hostile chain that loops is walked only to the bound.
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    let visits = 0;
    expect(
      causeWhere(a, () => {
        visits++;
        return false;
      }),
    ).toBeUndefined();
    expect(visits).toBe(5);
  });
});
