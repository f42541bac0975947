import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ContextError } from '../errors.js';
import { type ContextConfig, parseContextConfig } from './parse-context-config.js';

/**
 * Reads and validates an `mcp-context.json`. A missing file, bad JSON, nesting deeper than any
 * config needs and bad fields are all INVALID_OPTION errors naming the file and the field.
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
  const tooDeep = pathDeeperThan(input, maxConfigDepth);
  if (tooDeep !== undefined) {
    throw new ContextError(
      'INVALID_OPTION',
      `config ${absolute}: nested deeper than ${maxConfigDepth} levels (at config.${tooDeep.slice(0, 6).join('.')}…)`,
      { field: 'config', value: absolute },
    );
  }
  return parseContextConfig(input, { baseDirectory: dirname(absolute) });
}

// --- Internal helpers ---

/**
 * A real config nests a handful of levels; JSON.parse accepts 10,000, and recursive code after
 * it (validation, error messages) would overflow the stack on such a file. Refused up front.
 */
const maxConfigDepth = 64;

/** The path to the first value nested deeper than `limit`, found without recursion. */
function pathDeeperThan(input: unknown, limit: number): string[] | undefined {
  const stack: { value: unknown; path: string[] }[] = [{ value: input, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string[] };
    if (typeof value !== 'object' || value === null) continue;
    if (path.length >= limit) return path;
    for (const [key, child] of Object.entries(value)) stack.push({ value: child, path: [...path, key] });
  }
  return undefined;
}
