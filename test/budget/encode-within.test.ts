import { describe, expect, it } from 'vitest';
import { encodeWithin } from '../../src/budget/encode-within.js';
import { createCharTokenizer } from './char-tokenizer.js';

describe('encodeWithin', () => {
  it("calls the tokenizer's own bounded encoding with the limit and the side", async () => {
    const { tokenizer, calls } = createCharTokenizer({ bounded: true });
    expect(await encodeWithin(tokenizer, 'abcdefgh', 2, 'end')).toStrictEqual({
      tokens: Uint32Array.of(0x66, 0x67, 0x68),
      start: 5,
      end: 8,
      complete: false,
    });
    expect(calls).toEqual(['encodeWithin end 2']);
  });

  it('encodes the whole text, complete, for a tokenizer without a bounded encoding', async () => {
    const { tokenizer, calls } = createCharTokenizer();
    expect(await encodeWithin(tokenizer, 'abcdefgh', 2, 'end')).toStrictEqual({
      tokens: Uint32Array.of(0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68),
      start: 0,
      end: 8,
      complete: true,
    });
    expect(calls).toEqual(['encode 8']);
  });
});
