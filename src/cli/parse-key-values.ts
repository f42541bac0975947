import { UsageError } from './usage-error.js';

/** `key=value` arguments into an object; the value may itself contain "=". */
export function parseKeyValues(items: readonly string[]): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of items) {
    const separator = item.indexOf('=');
    if (separator <= 0) throw new UsageError(`expected key=value, got ${JSON.stringify(item)}`);
    const key = item.slice(0, separator);
    if (Object.hasOwn(result, key)) throw new UsageError(`argument ${key} is given twice`);
    result[key] = item.slice(separator + 1);
  }
  return result;
}
