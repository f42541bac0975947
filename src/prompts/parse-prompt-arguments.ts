import { ContextError } from '../errors.js';

const keyPattern = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * The one parser of prompt and template arguments, for the library and the CLI alike:
 * a JSON object (`{"city": "Paris", "days": 3}`), or `key=value` pairs.
 *
 * - A string (what follows a slash command) holds pairs separated by whitespace.
 * - A list of words (a command line the shell already split) holds one pair per word, so a
 *   bare value may contain spaces (`"city=San Francisco"`); words that start with `{` are JSON.
 *
 * Values may be bare, "double-quoted" or 'single-quoted'. Inside double quotes only `\"` and
 * `\\` are escapes, so Windows paths keep their backslashes (`C:\Users\me`). Anything ambiguous
 * (an unterminated quote, a pair without `=`, a repeated key, a quote inside a bare value, JSON
 * that is not an object of scalars) is an INVALID_ARGUMENTS error naming it, never a guess.
 * Numbers and booleans in JSON become strings: MCP arguments are strings.
 */
export function parsePromptArguments(input: string | readonly string[]): Record<string, string> {
  if (typeof input === 'string') {
    const text = input.trim();
    return text.startsWith('{') ? parseJson(text) : parsePairs(text, 'whitespace');
  }
  const words = input.filter((word) => word.trim() !== '');
  if (words[0]?.trimStart().startsWith('{')) return parseJson(words.join(' '));
  const result = emptyArguments();
  for (const word of words) {
    for (const [key, value] of Object.entries(parsePairs(word, 'end'))) {
      if (Object.hasOwn(result, key)) throw invalid(`argument "${key}" is given twice`, word, key);
      result[key] = value;
    }
  }
  return result;
}

// --- Internal helpers ---

function parseJson(text: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(`the arguments are not valid JSON: ${(error as Error).message}`, text);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('JSON arguments must be an object', text);
  }
  const result = emptyArguments();
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry === 'string') result[key] = entry;
    else if (typeof entry === 'number' || typeof entry === 'boolean') result[key] = String(entry);
    else throw invalid(`argument "${key}" must be a string, number or boolean`, text, key);
  }
  return result;
}

/** `bareUntil`: a bare value ends at whitespace (typed text) or at the end (one shell word). */
function parsePairs(text: string, bareUntil: 'whitespace' | 'end'): Record<string, string> {
  const result = emptyArguments();
  let position = 0;
  while (position < text.length) {
    while (position < text.length && /\s/.test(text[position] ?? '')) position++;
    if (position >= text.length) break;
    const equals = text.indexOf('=', position);
    const nextSpace = bareUntil === 'end' ? -1 : text.slice(position).search(/\s/);
    if (equals <= position || (nextSpace >= 0 && position + nextSpace < equals)) {
      const where = bareUntil === 'end' ? 'got' : `at position ${position} of`;
      throw invalid(`expected key=value, ${where} ${JSON.stringify(text)}`, text);
    }
    const key = text.slice(position, equals);
    if (!keyPattern.test(key)) throw invalid(`"${key}" is not an argument name`, text, key);
    if (Object.hasOwn(result, key)) throw invalid(`argument "${key}" is given twice`, text, key);
    const { value, end } = readValue(text, equals + 1, key, bareUntil);
    result[key] = value;
    position = end;
  }
  return result;
}

function readValue(
  text: string,
  start: number,
  key: string,
  bareUntil: 'whitespace' | 'end',
): { value: string; end: number } {
  const quote = text[start];
  if (quote !== '"' && quote !== "'") {
    let end = start;
    while (end < text.length && (bareUntil === 'end' || !/\s/.test(text[end] ?? ''))) end++;
    const value = text.slice(start, end);
    if (value.includes('"') || value.includes("'")) {
      throw invalid(
        `argument "${key}" has a quote inside an unquoted value; quote the whole value`,
        text,
        key,
      );
    }
    return { value, end };
  }
  let value = '';
  for (let index = start + 1; index < text.length; index++) {
    const character = text[index];
    if (character === quote) {
      const after = text[index + 1];
      if (after !== undefined && !/\s/.test(after)) {
        throw invalid(`argument "${key}": text follows the closing quote at position ${index}`, text, key);
      }
      return { value, end: index + 1 };
    }
    const next = text[index + 1];
    if (quote === '"' && character === '\\' && (next === '"' || next === '\\')) {
      value += next;
      index++;
      continue;
    }
    value += character;
  }
  throw invalid(`argument "${key}": the quote opened at position ${start} is never closed`, text, key);
}

/** A null-prototype record, so an argument named `__proto__` is kept as data, not dropped. */
function emptyArguments(): Record<string, string> {
  return Object.create(null) as Record<string, string>;
}

function invalid(message: string, value: string, field?: string): ContextError {
  return new ContextError('INVALID_ARGUMENTS', message, { value, ...(field !== undefined && { field }) });
}
