import { ContextError } from '../errors.js';

export interface PromptCommand {
  readonly server: string;
  readonly prompt: string;
  readonly arguments: Record<string, string>;
}

const commandPattern = /^\/mcp__([A-Za-z0-9][A-Za-z0-9_.-]*?)__([^\s]+)(?:\s+([\s\S]*))?$/;
const namePattern = /^\/mcp__(\S+)(?:\s+([\s\S]*))?$/;
const keyPattern = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * Parses `/mcp__<server>__<prompt> key=value key2="quoted value"` or
 * `/mcp__<server>__<prompt> {"key": "value"}` into a prompt call.
 *
 * Pass the configured server names to resolve names that contain "__".
 *
 * Values may be bare (no whitespace), "double-quoted" or 'single-quoted'. Inside double quotes
 * only `\"` and `\\` are escapes, so Windows paths keep their backslashes (`C:\Users\me`).
 * Anything ambiguous — an unterminated quote, a pair without `=`, a repeated key, JSON that is
 * not an object of scalars — is an INVALID_PROMPT_COMMAND error naming the position, never a guess.
 */
export function parsePromptCommand(
  input: string,
  options: { servers?: readonly string[] } = {},
): PromptCommand {
  const { server, prompt, rest } = splitCommand(input.trim(), options.servers);
  const text = rest.trim();
  const parsedArguments = text.startsWith('{') ? parseJsonArguments(text) : parsePairs(text);
  return { server, prompt, arguments: parsedArguments };
}

// --- Internal helpers ---

/**
 * Server names may contain "_" and even "__": given the configured names, the longest one that
 * prefixes the command wins; without them, the server is everything up to the first "__".
 */
function splitCommand(
  input: string,
  servers: readonly string[] | undefined,
): { server: string; prompt: string; rest: string } {
  const usage = 'a prompt command looks like /mcp__<server>__<prompt> key=value …';
  if (!servers) {
    const [, server = '', prompt = '', rest = ''] = commandPattern.exec(input) ?? [];
    if (!server || !prompt) throw invalid(usage, input);
    return { server, prompt, rest };
  }
  const [, name = '', rest = ''] = namePattern.exec(input) ?? [];
  const server = [...servers]
    .sort((a, b) => b.length - a.length)
    .find((candidate) => name.startsWith(`${candidate}__`) && name.length > candidate.length + 2);
  if (!server) {
    throw invalid(
      `${usage}; no configured server matches (configured: ${servers.join(', ') || 'none'})`,
      input,
    );
  }
  return { server, prompt: name.slice(server.length + 2), rest };
}

function parseJsonArguments(text: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalid(`the arguments are not valid JSON: ${(error as Error).message}`, text);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('JSON arguments must be an object', text);
  }
  const result: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    // MCP prompt arguments are strings; numbers and booleans convert without loss.
    if (typeof entry === 'string') result[key] = entry;
    else if (typeof entry === 'number' || typeof entry === 'boolean') result[key] = String(entry);
    else throw invalid(`argument "${key}" must be a string, number or boolean`, text, key);
  }
  return result;
}

function parsePairs(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  let position = 0;
  while (position < text.length) {
    while (position < text.length && /\s/.test(text[position] ?? '')) position++;
    if (position >= text.length) break;
    const equals = text.indexOf('=', position);
    const nextSpace = text.slice(position).search(/\s/);
    if (equals < 0 || (nextSpace >= 0 && position + nextSpace < equals)) {
      throw invalid(`expected key=value at position ${position}`, text);
    }
    const key = text.slice(position, equals);
    if (!keyPattern.test(key)) throw invalid(`"${key}" is not an argument name`, text, key);
    if (Object.hasOwn(result, key)) throw invalid(`argument "${key}" is given twice`, text, key);
    const { value, end } = readValue(text, equals + 1, key);
    result[key] = value;
    position = end;
  }
  return result;
}

function readValue(text: string, start: number, key: string): { value: string; end: number } {
  const quote = text[start];
  if (quote !== '"' && quote !== "'") {
    let end = start;
    while (end < text.length && !/\s/.test(text[end] ?? '')) end++;
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

function invalid(message: string, value: string, field?: string): ContextError {
  return new ContextError('INVALID_PROMPT_COMMAND', message, {
    value,
    ...(field !== undefined && { field }),
  });
}
