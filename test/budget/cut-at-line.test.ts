import { describe, expect, it } from 'vitest';
import { lineEndBefore, lineStartAfter } from '../../src/budget/truncate/cut-at-line.js';

describe('lineEndBefore: a head cut ends at a line end only when one is within 3 % of the end', () => {
  it('a newline 3 characters before the end of 100 is near: the cut ends just after it', () => {
    expect(lineEndBefore(`${'a'.repeat(96)}\nbbb`)).toBe(97);
  });

  it('a newline 4 characters before the end of 100 is not: the cut keeps everything', () => {
    expect(lineEndBefore(`${'a'.repeat(95)}\nbbbb`)).toBe(100);
  });

  it('text without a newline, or ending with one, is kept whole', () => {
    expect(lineEndBefore('a'.repeat(50))).toBe(50);
    expect(lineEndBefore(`${'a'.repeat(49)}\n`)).toBe(50);
    expect(lineEndBefore('')).toBe(0);
  });
});

describe('lineStartAfter: a tail cut starts after a line end only when one is within 3 % of the start', () => {
  it('a newline at index 2 of 100 is near: the cut starts after it; at index 3 it is not', () => {
    expect(lineStartAfter(`aa\n${'b'.repeat(97)}`)).toBe(3);
    expect(lineStartAfter(`aaa\n${'b'.repeat(96)}`)).toBe(0);
  });

  it('text without a newline, or ending with one, is kept whole', () => {
    expect(lineStartAfter('a'.repeat(50))).toBe(0);
    expect(lineStartAfter(`${'a'.repeat(49)}\n`)).toBe(0);
  });
});
