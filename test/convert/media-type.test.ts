import { describe, expect, it } from 'vitest';
import { parseMediaType } from '../../src/convert/media-type.js';

describe('parseMediaType', () => {
  it('parses essence, suffix and parameters, case-insensitively', () => {
    expect(parseMediaType('Application/LD+JSON; charset="utf-8"')).toEqual({
      essence: 'application/ld+json',
      type: 'application',
      subtype: 'ld+json',
      suffix: 'json',
      parameters: { charset: 'utf-8' },
    });
  });

  it('reads quoted parameter values per RFC 9110: `;` inside quotes, backslash escapes (found by fuzzing)', () => {
    expect(
      parseMediaType('text/plain; title="a;b"; note="say \\"hi\\" \\\\ ok"; charset=utf-8'),
    ).toMatchObject({
      essence: 'text/plain',
      parameters: { title: 'a;b', note: 'say "hi" \\ ok', charset: 'utf-8' },
    });
  });

  it('keeps a parameter named __proto__ as a parameter, not a prototype', () => {
    const parsed = parseMediaType('text/html; __proto__=x; profile=mcp-app');
    expect(Object.hasOwn(parsed?.parameters ?? {}, '__proto__')).toBe(true);
    expect(parsed?.parameters.profile).toBe('mcp-app');
  });

  it('refuses what is not a media type', () => {
    expect(parseMediaType('json')).toBeUndefined();
    expect(parseMediaType('text/plain/extra')).toBeUndefined();
    expect(parseMediaType('')).toBeUndefined();
  });
});

describe('parseMediaType: parameters (RFC 9110 §5.6.6)', () => {
  const parametersOf = (value: string) => parseMediaType(value)?.parameters;

  it('ignores spaces around the type and subtype', () => {
    expect(parseMediaType('  text/plain  ; charset=utf-8')).toStrictEqual({
      essence: 'text/plain',
      type: 'text',
      subtype: 'plain',
      parameters: { charset: 'utf-8' },
    });
    expect(parseMediaType('\ttext/plain ')).toMatchObject({ essence: 'text/plain', parameters: {} });
  });

  it('a type without a subtype or with a second slash is no media type', () => {
    expect(parseMediaType('text')).toBeUndefined();
    expect(parseMediaType('text/')).toBeUndefined();
    expect(parseMediaType('/plain')).toBeUndefined();
    expect(parseMediaType('text/plain/extra; a=b')).toBeUndefined();
  });

  it('a parameter without `=` is skipped, and the ones after it are read', () => {
    expect(parametersOf('text/plain; flowed; charset=utf-8')).toStrictEqual({ charset: 'utf-8' });
    expect(parametersOf('text/plain; charset=utf-8; flowed')).toStrictEqual({ charset: 'utf-8' });
    expect(parametersOf('text/plain;;; charset=utf-8')).toStrictEqual({ charset: 'utf-8' });
    expect(parametersOf('text/plain;')).toStrictEqual({});
  });

  it('a parameter with an empty name is skipped', () => {
    expect(parametersOf('text/plain; =x; charset=utf-8')).toStrictEqual({ charset: 'utf-8' });
    expect(parametersOf('text/plain;  = x')).toStrictEqual({});
  });

  it('names are lower-cased and trimmed; unquoted values are trimmed but keep their case', () => {
    expect(parametersOf('text/plain;  CharSet =  UTF-8  ; Format=Flowed')).toStrictEqual({
      charset: 'UTF-8',
      format: 'Flowed',
    });
  });

  it('spaces and tabs before a quoted value are skipped, and the quotes still read', () => {
    expect(parametersOf('text/plain; title= "a;b"; note=\t"c;d"; x=y')).toStrictEqual({
      title: 'a;b',
      note: 'c;d',
      x: 'y',
    });
  });

  it('a quoted value keeps its inner spaces, and an empty one is empty', () => {
    expect(parametersOf('text/plain; title=" a b "; empty=""')).toStrictEqual({ title: ' a b ', empty: '' });
  });

  it('whatever follows a closing quote up to the next `;` is ignored, `=` included', () => {
    expect(parametersOf('text/plain; a="x"junk=y; c=d')).toStrictEqual({ a: 'x', c: 'd' });
    expect(parametersOf('text/plain; a="x;"junk=y; c=d')).toStrictEqual({ a: 'x;', c: 'd' });
    expect(parametersOf('text/plain; a="x" ; c=d')).toStrictEqual({ a: 'x', c: 'd' });
  });

  it('a quote never closed runs to the end; a backslash at the very end is kept', () => {
    expect(parametersOf('text/plain; title="abc; x=y')).toStrictEqual({ title: 'abc; x=y' });
    expect(parametersOf('text/plain; title="abc\\')).toStrictEqual({ title: 'abc\\' });
    expect(parametersOf('text/plain; title="a\\"b')).toStrictEqual({ title: 'a"b' });
  });

  it('a later parameter of the same name wins', () => {
    expect(parametersOf('text/plain; charset=ascii; CHARSET=utf-8')).toStrictEqual({ charset: 'utf-8' });
  });
});
