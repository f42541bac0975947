import { ContextError } from '../errors.js';

/** An error as `{ code, message }` for tables and `--json` output. */
export function describeError(error: unknown): { code: string; message: string } {
  if (ContextError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: 'ERROR', message: error instanceof Error ? error.message : String(error) };
}
