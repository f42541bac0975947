import { UsageError } from './usage-error.js';

/** The command's required positional arguments, by name, or a usage error naming the first missing one. */
export function requirePositionals<Names extends readonly string[]>(
  positionals: readonly string[],
  names: Names,
  options: { rest?: boolean } = {},
): { [Index in keyof Names]: string } {
  const missing = names.slice(positionals.length);
  if (missing.length > 0) throw new UsageError(`missing <${missing[0]}>`);
  if (!options.rest && positionals.length > names.length) {
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[names.length])}`);
  }
  return positionals.slice(0, names.length) as { [Index in keyof Names]: string };
}

/** A one-line excerpt for a table cell. */
export function shorten(text: string | undefined, length = 60): string {
  const line = (text ?? '').replace(/\s+/g, ' ').trim();
  return line.length > length ? `${line.slice(0, length - 1)}…` : line;
}
