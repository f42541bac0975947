import { describe, expect, it } from 'vitest';
import { vocabularyOf } from '../../src/budget/vocabulary-of.js';

describe('vocabularyOf', () => {
  it('reads an encoding’s vocabulary once per process: every call answers the same tables', () => {
    // Each encoder miss looks its ranks up here; a vocabulary read again per call would cost
    // a few hundred ms each time.
    expect(vocabularyOf('cl100k_base')).toBe(vocabularyOf('cl100k_base'));
    expect(vocabularyOf('o200k_base')).not.toBe(vocabularyOf('cl100k_base'));
  });
});
