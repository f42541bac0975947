import { describe, expect, it } from 'vitest';
import { ContextError } from '../../src/errors.js';
import {
  boundaryLimits,
  boundaryTextSchema,
  boundaryViolation,
  requireBoundaryText,
} from '../../src/options/boundary-text.js';
import { parseOptions } from '../../src/options/parse-options.js';

describe('the rule for ids and URIs at the API boundary', () => {
  it('states its limits in UTF-8 bytes: ids 256, URIs 2048, templates 8192', () => {
    expect(boundaryLimits).toEqual({ id: 256, uri: 2048, template: 8192 });
  });

  it.each([
    ['a high surrogate alone', 'c-\uD800', 'U+D800 at index 2'],
    ['a low surrogate alone', 'c-\uDC00-x', 'U+DC00 at index 2'],
    ['a pair in the wrong order', '\uDE00\uD83D', 'U+DE00 at index 0'],
    ['a high surrogate at the end after a whole pair', '\uD83D\uDE00\uD83D', 'U+D83D at index 2'],
  ])('refuses %s, naming where it is', (_, text, where) => {
    expect(boundaryViolation(text, 'id')).toBe(
      `an id is 1 to 256 bytes of well-formed UTF-8 without NUL; this one holds a lone surrogate (${where})`,
    );
  });

  it('refuses NUL and the empty string', () => {
    expect(boundaryViolation('a\u0000b', 'uri')).toBe(
      'a URI is 1 to 2048 bytes of well-formed UTF-8 without NUL; this one holds NUL at index 1',
    );
    expect(boundaryViolation('', 'id')).toMatch(/this one is empty$/);
  });

  it('counts bytes, not UTF-16 units: ASCII 1, é 2, CJK 3, an astral character 4', () => {
    expect(boundaryViolation('a'.repeat(256), 'id')).toBeUndefined();
    expect(boundaryViolation('a'.repeat(257), 'id')).toMatch(/this one is 257 bytes$/);
    expect(boundaryViolation('é'.repeat(128), 'id')).toBeUndefined();
    expect(boundaryViolation(`${'é'.repeat(128)}a`, 'id')).toMatch(/257 bytes$/);
    // 85 CJK characters are 255 bytes; one more is 258.
    expect(boundaryViolation('漢'.repeat(85), 'id')).toBeUndefined();
    expect(boundaryViolation('漢'.repeat(86), 'id')).toMatch(/258 bytes$/);
    // 64 emoji are 128 UTF-16 units and 256 bytes.
    expect(boundaryViolation('😀'.repeat(64), 'id')).toBeUndefined();
    expect(boundaryViolation('😀'.repeat(65), 'id')).toMatch(/260 bytes$/);
    expect(boundaryViolation('x'.repeat(2048), 'uri')).toBeUndefined();
    expect(boundaryViolation('x'.repeat(2049), 'uri')).toMatch(/2049 bytes$/);
  });

  it('requireBoundaryText throws the code asked for, naming the field and the limit, the value escaped', () => {
    let caught: unknown;
    try {
      requireBoundaryText('ada\uD800', 'id', 'turn.principal', 'INVALID_OPTION');
    } catch (error) {
      caught = error;
    }
    expect(ContextError.isInstance(caught)).toBe(true);
    expect(caught).toMatchObject({
      code: 'INVALID_OPTION',
      field: 'turn.principal',
      value: 'ada\uD800',
      limit: 256,
      message:
        'turn.principal: an id is 1 to 256 bytes of well-formed UTF-8 without NUL; this one holds a lone surrogate (U+D800 at index 3) (got "ada\\ud800")',
    });
    expect(() => requireBoundaryText(42, 'uri', 'pin.uri', 'INVALID_ATTACHMENT')).toThrow(
      expect.objectContaining({
        code: 'INVALID_ATTACHMENT',
        message: 'pin.uri: a URI is a string, not number',
      }),
    );
    expect(requireBoundaryText('c-42', 'id', 'turn.conversationId', 'INVALID_OPTION')).toBe('c-42');
  });

  it('as a schema, parseOptions reports the rule with its limit', () => {
    let error: unknown;
    try {
      parseOptions(boundaryTextSchema('uri'), `x://${'a'.repeat(3000)}`, 'pin.uri');
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'INVALID_OPTION', field: 'pin.uri', limit: 2048 });
    expect((error as Error).message).toMatch(
      /^pin\.uri: a URI is 1 to 2048 bytes .*this one is 3004 bytes \(got "x:\/\/a+…\)$/,
    );
  });
});
