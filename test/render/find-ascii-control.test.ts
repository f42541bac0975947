import { describe, expect, it } from 'vitest';
import { asciiControlSearchOf } from '../../src/render/find-ascii-control.js';

// The class neutralizeText escapes, as far as ASCII goes (lone CR is the caller's).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters searched for
const control = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;
const firstByExpression = (text: string, from: number) => {
  control.lastIndex = from;
  return control.exec(text)?.index ?? -1;
};

describe('searching long ASCII text for control characters, sixteen bytes at a time', () => {
  const filler = 'abcdefghijklmnop'.repeat(70).slice(0, 1100);

  it('finds every ASCII character the class holds, and only those, at block edges and in the tail', () => {
    for (let code = 0; code < 0x80; code++) {
      for (const at of [0, 15, 16, 17, 31, 32, 1083, 1084, 1099]) {
        const text = filler.slice(0, at) + String.fromCharCode(code) + filler.slice(at + 1);
        const search = asciiControlSearchOf(text);
        expect(search, `code ${code} at ${at}`).toBeDefined();
        expect(search?.next(0), `code ${code} at ${at}`).toBe(firstByExpression(text, 0));
      }
    }
  });

  it('searches on from where it is asked, past controls already found', () => {
    const text = `${filler.slice(0, 40)}\u0001${filler.slice(41, 600)}\u007f${filler.slice(601, 1050)}\u001b${filler.slice(1051)}`;
    const search = asciiControlSearchOf(text);
    expect([0, 41, 601, 1051].map((from) => search?.next(from))).toEqual([40, 600, 1050, -1]);
  });

  it('leaves short text, and text beyond ASCII, to the regular expression', () => {
    expect(asciiControlSearchOf('short\u0001')).toBeUndefined();
    expect(asciiControlSearchOf(`${filler}é`)).toBeUndefined();
    expect(asciiControlSearchOf(`${filler}\u0085`)).toBeUndefined();
    expect(asciiControlSearchOf(`🙂${filler}`)).toBeUndefined();
  });

  it('a text longer than any before grows the memory it is copied into', () => {
    const long = `${'x'.repeat(300_000)}\u0002`;
    expect(asciiControlSearchOf(long)?.next(0)).toBe(300_000);
    expect(asciiControlSearchOf(`${filler}\u0003`)?.next(0)).toBe(1100);
  });
});
