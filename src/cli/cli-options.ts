import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

/**
 * Every option of every command, for one strict `parseArgs` pass (Node's own parser); each
 * command then says which of them it takes. One name has one type across commands.
 */
export const cliOptions = {
  config: { type: 'string' },
  store: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  port: { type: 'string' },
  all: { type: 'boolean' },
  cursor: { type: 'string' },
  'max-tokens': { type: 'string' },
  priority: { type: 'string' },
  pipeline: { type: 'string' },
  conversation: { type: 'string' },
  attach: { type: 'string', multiple: true },
  budget: { type: 'string' },
  format: { type: 'string' },
  'ignore-audience': { type: 'boolean' },
  skill: { type: 'boolean' },
  content: { type: 'boolean' },
  pinning: { type: 'boolean' },
  principal: { type: 'string' },
  credentials: { type: 'string' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** Options every command takes. */
export const globalOptions = ['config', 'store', 'json', 'help'] as const;

export type CliOptionName = keyof typeof cliOptions;

export function parseCliArguments(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    options: cliOptions,
    allowPositionals: true,
    strict: true,
    tokens: true,
  });
}

export type CliOptionValues = ReturnType<typeof parseCliArguments>['values'];

/** An integer option, or a usage error naming it. */
export function parseIntegerOption(
  name: CliOptionName,
  value: string | undefined,
  bounds: { min: number; max?: number },
): number | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  const max = bounds.max ?? Number.MAX_SAFE_INTEGER;
  if (value.trim() === '' || !Number.isInteger(number) || number < bounds.min || number > max) {
    const range = bounds.max === undefined ? `≥ ${bounds.min}` : `${bounds.min}–${bounds.max}`;
    throw new UsageError(`--${name}: expected an integer ${range} (got ${JSON.stringify(value)})`);
  }
  return number;
}
