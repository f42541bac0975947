import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ContextError } from '../errors.js';
import { type ContextConfig, parseContextConfig } from './parse-context-config.js';

/**
 * Reads and validates an `mcp-context.json`. A missing file, bad JSON and bad fields are all
 * INVALID_OPTION errors naming the file and the field.
 */
export async function loadContextConfig(path: string): Promise<ContextConfig> {
  const absolute = resolve(path);
  let text: string;
  try {
    text = await readFile(absolute, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new ContextError('INVALID_OPTION', `config ${absolute}: ${reason}`, {
      field: 'config',
      value: absolute,
    });
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw new ContextError('INVALID_OPTION', `config ${absolute}: not JSON: ${(error as Error).message}`, {
      field: 'config',
      value: absolute,
    });
  }
  return parseContextConfig(input, { baseDirectory: dirname(absolute) });
}
