import { describe, expect, it } from 'vitest';
import { ContextError } from '../../src/errors.js';
import { parsePromptArguments } from '../../src/prompts/parse-prompt-arguments.js';

function failure(input: string | readonly string[]): ContextError {
  try {
    parsePromptArguments(input);
  } catch (error) {
    if (ContextError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`parsed: ${JSON.stringify(input)}`);
}

describe('parsePromptArguments (the one argument parser of the library and the CLI)', () => {
  it('typed text: whitespace-separated pairs, bare, double- or single-quoted', () => {
    expect(
      parsePromptArguments(`city="San Francisco" days=3 note='it said "hi"' path="C:\\Users\\me"`),
    ).toEqual({
      city: 'San Francisco',
      days: '3',
      note: 'it said "hi"',
      path: 'C:\\Users\\me',
    });
    expect(parsePromptArguments('')).toEqual({});
  });

  it('shell words: one pair per word, so a bare value keeps its spaces and "="', () => {
    expect(parsePromptArguments(['city=San Francisco', 'query=a=b', 'quoted="x y"'])).toEqual({
      city: 'San Francisco',
      query: 'a=b',
      quoted: 'x y',
    });
  });

  it('a JSON object, as text or as words, with numbers and booleans as strings', () => {
    const expected = { city: 'Paris', days: '3', hot: 'false' };
    expect(parsePromptArguments('{"city": "Paris", "days": 3, "hot": false}')).toEqual(expected);
    expect(parsePromptArguments(['{"city": "Paris", "days": 3, "hot": false}'])).toEqual(expected);
    expect(parsePromptArguments(['{"city":', '"Paris",', '"days":', '3,', '"hot":', 'false}'])).toEqual(
      expected,
    );
  });

  it('keeps an argument named __proto__ as data in every form (never dropped, never a prototype)', () => {
    for (const input of ['__proto__=x a=1', ['__proto__=x', 'a=1'], '{"__proto__": "x", "a": 1}']) {
      const parsed = parsePromptArguments(input);
      expect(Object.keys(parsed).sort()).toEqual(['__proto__', 'a']);
      expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
      expect(parsed.__proto__).toBe('x');
      expect(JSON.parse(JSON.stringify(parsed))).toEqual(JSON.parse('{"__proto__": "x", "a": "1"}'));
    }
  });

  it.each([
    ['city="unterminated', 'argument "city": the quote opened at position 5 is never closed', 'city'],
    [['city="unterminated'], 'argument "city": the quote opened at position 5 is never closed', 'city'],
    [["city='unterminated"], 'is never closed', 'city'],
    ['city', 'expected key=value', undefined],
    [['city'], 'expected key=value, got "city"', undefined],
    [['=x'], 'expected key=value', undefined],
    ['a=1 a=2', 'argument "a" is given twice', 'a'],
    [['a=1', 'a=2'], 'argument "a" is given twice', 'a'],
    ['note=it"s', 'quote inside an unquoted value', 'note'],
    ['a="x"y', 'text follows the closing quote', 'a'],
    ['{"a": [1]}', 'argument "a" must be a string, number or boolean', 'a'],
    ['{"a": ', 'the arguments are not valid JSON', undefined],
    [['[1, 2]'], 'expected key=value', undefined],
  ] as const)('refuses %j with INVALID_ARGUMENTS naming the problem', (input, message, field) => {
    const error = failure(input as string | readonly string[]);
    expect(error.code).toBe('INVALID_ARGUMENTS');
    expect(error.message).toContain(message);
    expect(error.field).toBe(field);
  });
});
