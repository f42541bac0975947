import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from './usage-error.js';

/**
 * Every option of every command, declared once: its type for one strict `parseArgs` pass (Node's
 * own parser, which ignores the help fields) and its value name and description for `--help`.
 * Each command then says which of them it takes. One name has one type across commands.
 */
export const cliOptions = {
  config: {
    type: 'string',
    value: 'FILE',
    description: 'the config (default ./mcp-context.json; without one, no servers and no bindings)',
  },
  store: {
    type: 'string',
    value: 'FILE',
    description: 'the SQLite pin store (default: the config\'s "store", else ./mcp-context.sqlite)',
  },
  json: { type: 'boolean', description: 'machine-readable output on stdout (errors too, on stderr)' },
  help: { type: 'boolean', short: 'h', description: 'this text: the usage of the command or group' },
  version: { type: 'boolean', short: 'V', description: "the package's version (alone, before any command)" },
  port: {
    type: 'string',
    value: 'N',
    description: 'the port to listen on (0: a free one; default: a free one, 8080 for serve)',
  },
  host: {
    type: 'string',
    value: 'ADDRESS',
    description: 'the address to listen on (default 127.0.0.1; any other needs service keys)',
  },
  all: { type: 'boolean', description: 'every page, not only the first' },
  cursor: {
    type: 'string',
    value: 'C',
    description: 'the page after this cursor (printed with the previous page)',
  },
  'max-tokens': {
    type: 'string',
    value: 'N',
    description: 'at most N tokens for this resource, frame and truncation markers included',
  },
  priority: {
    type: 'string',
    value: 'N',
    description: 'rank among attachments of the same scope, -1000 to 1000 (higher first)',
  },
  pipeline: { type: 'string', value: 'P', description: 'the pipeline id (its bindings and its pins)' },
  conversation: { type: 'string', value: 'C', description: 'the conversation id (its pins)' },
  attach: {
    type: 'string',
    multiple: true,
    value: 'server:uri',
    description: "attach a resource to this turn's message (repeatable)",
  },
  budget: {
    type: 'string',
    value: 'N',
    description: "the turn's maxTokens (default: the config's budget, else 8000)",
  },
  format: {
    type: 'string',
    value: 'text|openai|anthropic',
    description: 'the shape of the context on stdout',
  },
  'ignore-audience': {
    type: 'boolean',
    description: 'inject it even when its annotations.audience leaves out the assistant',
  },
  skill: {
    type: 'boolean',
    description: "load it as a skill (its SKILL.md, verified against the server's entry)",
  },
  content: { type: 'boolean', description: 'show the injected context itself, not only the traces' },
  pinning: { type: 'boolean', description: 'let the page add and remove pins' },
  principal: { type: 'string', value: 'P', description: 'the host user, for a per-user (OAuth) server' },
  credentials: {
    type: 'string',
    value: 'FILE',
    description: 'the encrypted token file (default ./mcp-context.credentials.json)',
  },
} as const satisfies Record<
  string,
  NonNullable<ParseArgsConfig['options']>[string] & { readonly value?: string; readonly description: string }
>;

/** Options every command takes. */
export const globalOptions = ['config', 'store', 'json', 'help'] as const;

/** `  -h, --help  this text` lines for `--help`, aligned, one per option. */
export function describeOptions(names: readonly CliOptionName[]): string {
  const rows = names.map((name) => {
    const option: { short?: string; value?: string; description: string } = cliOptions[name];
    const flag = `${option.short !== undefined ? `-${option.short}, ` : ''}--${name}${option.value !== undefined ? ` ${option.value}` : ''}`;
    return [flag, option.description] as const;
  });
  const width = Math.max(0, ...rows.map(([flag]) => flag.length));
  return rows.map(([flag, description]) => `  ${flag.padEnd(width)}  ${description}`).join('\n');
}

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
