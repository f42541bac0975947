import { ContextError } from '../errors.js';
import { parsePromptArguments } from './parse-prompt-arguments.js';

export interface PromptCommand {
  readonly server: string;
  readonly prompt: string;
  readonly arguments: Record<string, string>;
}

const commandPattern = /^\/mcp__([A-Za-z0-9][A-Za-z0-9_.-]*?)__([^\s]+)(?:\s+([\s\S]*))?$/;
const namePattern = /^\/mcp__(\S+)(?:\s+([\s\S]*))?$/;

/**
 * Parses `/mcp__<server>__<prompt> key=value key2="quoted value"` or
 * `/mcp__<server>__<prompt> {"key": "value"}` into a prompt call.
 *
 * Pass the configured server names to resolve names that contain "__".
 *
 * The arguments go through `parsePromptArguments` (the CLI's parser too); anything ambiguous —
 * an unterminated quote, a pair without `=`, a repeated key, JSON that is not an object of
 * scalars — is an INVALID_PROMPT_COMMAND error naming it, never a guess.
 */
export function parsePromptCommand(
  input: string,
  options: { servers?: readonly string[] } = {},
): PromptCommand {
  const { server, prompt, rest } = splitCommand(input.trim(), options.servers);
  try {
    return { server, prompt, arguments: parsePromptArguments(rest) };
  } catch (error) {
    // The same facts; the code says the command as a whole was not understood.
    if (!ContextError.isInstance(error) || error.code !== 'INVALID_ARGUMENTS') throw error;
    throw new ContextError(
      'INVALID_PROMPT_COMMAND',
      error.message,
      { value: error.value, ...(error.field !== undefined && { field: error.field }) },
      error,
    );
  }
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

function invalid(message: string, value: string, field?: string): ContextError {
  return new ContextError('INVALID_PROMPT_COMMAND', message, {
    value,
    ...(field !== undefined && { field }),
  });
}
