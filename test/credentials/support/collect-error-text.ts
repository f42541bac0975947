import { inspect } from 'node:util';

/** Everything an error would show anywhere: message, stack, fields and its whole cause chain. */
export function collectErrorText(error: unknown): string {
  const texts: string[] = [inspect(error, { depth: 12, showHidden: true })];
  let current: unknown = error;
  for (let depth = 0; depth < 12 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) texts.push(current.message, current.stack ?? '');
    try {
      texts.push(JSON.stringify(current, Object.getOwnPropertyNames(current)));
    } catch {
      // Circular: inspect above has it.
    }
    current = (current as { cause?: unknown }).cause;
  }
  return texts.join('\n');
}
