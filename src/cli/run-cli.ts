// What runs before a command is chosen loads none of the library: `--help`, `--version` and usage
// errors answer from the declarations alone (cli-commands.ts, cli-options.ts). A command's own
// module, and with it the part of the library it uses, is imported once the command is known.
import { ContextError } from '../errors.js';
import { packageVersion } from '../version.js';
import type { CliCommand } from './cli-command.js';
import { commands } from './cli-commands.js';
import { describeOptions, globalOptions, parseCliArguments } from './cli-options.js';
import { describeError } from './describe-error.js';
import { UsageError } from './usage-error.js';

/** Bad input rather than a failed operation: exit code 2. */
const usageErrorCodes = new Set([
  'INVALID_OPTION',
  'INVALID_ATTACHMENT',
  'INVALID_URI',
  'TEMPLATE_ARGUMENT_MISSING',
  'TEMPLATE_ARGUMENT_UNKNOWN',
  'UNKNOWN_SERVER',
  'UNKNOWN_PIPELINE',
  'UNKNOWN_AGENT',
  'INVALID_ARGUMENTS',
  'INVALID_PROMPT_COMMAND',
  'PROMPT_ARGUMENT_MISSING',
]);

function describeCommands(list: readonly CliCommand[]): string {
  return list.map((command) => `  ${command.name} ${command.arguments}\n      ${command.summary}`).join('\n');
}

const globalUsage = `every command takes:\n${describeOptions(globalOptions)}`;

const usage = `mcp-context — MCP resources as model context

usage: mcp-context <command> [options]
       mcp-context --version

${describeCommands(commands)}

${globalUsage}

exit codes: 0 success, 1 an operation failed, 2 bad usage or config`;

/** Where a run writes: the process's own streams, or a test's. */
export interface CliStreams {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
}

/**
 * Runs one `mcp-context` command line and resolves with its exit code (0 success, 1 an operation
 * failed, 2 bad usage or config); errors are written to `streams.stderr`, never thrown. Paths are
 * relative to the working directory.
 */
export async function runCli(argv: readonly string[], streams: CliStreams = process): Promise<number> {
  const state = { json: argv.includes('--json') };
  try {
    return await main(argv, state, streams);
  } catch (error) {
    const usageProblem = isUsageError(error);
    if (state.json) {
      const facts = describeError(error);
      const details = ContextError.isInstance(error)
        ? { field: error.field, value: error.value, ...(error.limit !== undefined && { limit: error.limit }) }
        : {};
      streams.stderr.write(`${JSON.stringify({ error: { ...facts, ...details } })}\n`);
    } else {
      streams.stderr.write(`mcp-context: ${error instanceof Error ? error.message : String(error)}\n`);
      if (error instanceof UsageError || (usageProblem && !ContextError.isInstance(error))) {
        streams.stderr.write('run mcp-context --help for usage\n');
      }
    }
    return usageProblem ? 2 : 1;
  }
}

async function main(argv: readonly string[], state: { json: boolean }, streams: CliStreams): Promise<number> {
  const { positionals, values, tokens } = parseCliArguments(argv);
  state.json = values.json === true;
  if (values.version && positionals.length === 0) {
    streams.stdout.write(
      state.json ? `${JSON.stringify({ version: packageVersion })}\n` : `${packageVersion}\n`,
    );
    return 0;
  }
  const command = findCommand(positionals);
  if (!command) {
    if (positionals.length === 0) {
      streams.stdout.write(`${usage}\n`);
      return values.help ? 0 : 2;
    }
    // A group's word alone (`pin`, `fixture`): its commands, as help or as a usage error.
    const group = commands.filter((candidate) => candidate.name.startsWith(`${positionals[0]} `));
    if (group.length > 0 && positionals.length === 1) {
      if (!values.help) {
        const words = group.map((candidate) => candidate.name.split(' ')[1]).join(', ');
        throw new UsageError(`${positionals[0]} needs one of: ${words}`);
      }
      const usages = group.map((member) => commandUsage(member, { global: false }));
      streams.stdout.write(
        `usage: mcp-context ${positionals[0]} <command> [options]\n\n${usages.join('\n\n')}\n\n${globalUsage}\n`,
      );
      return 0;
    }
    throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  }
  if (values.help) {
    streams.stdout.write(`${commandUsage(command)}\n`);
    return 0;
  }
  const allowed = new Set<string>([...globalOptions, ...command.options]);
  for (const token of tokens) {
    if (token.kind === 'option' && !allowed.has(token.name)) {
      throw new UsageError(`${command.name} takes no --${token.name}`);
    }
  }
  const [run, { CliContext }] = await Promise.all([command.load(), import('./cli-context.js')]);
  const context = new CliContext(values, streams.stdout, streams.stderr);
  try {
    return await run(context, positionals.slice(command.name.split(' ').length), values);
  } finally {
    await context.close();
  }
}

/** One command's usage: its arguments, what it does, and every option it takes, declared once. */
function commandUsage(command: CliCommand, options: { global: boolean } = { global: true }): string {
  const own = command.options.length > 0 ? `\n\noptions:\n${describeOptions(command.options)}` : '';
  const global = options.global ? `\n\n${globalUsage}` : '';
  return `usage: mcp-context ${`${command.name} ${command.arguments}`.trimEnd()}\n  ${command.summary}${own}${global}`;
}

/** The command whose words start the positionals; `pin add` before `pin`. */
function findCommand(positionals: readonly string[]): CliCommand | undefined {
  return commands.find((command) =>
    command.name.split(' ').every((word, index) => positionals[index] === word),
  );
}

/** Node's parseArgs reports bad options with codes such as ERR_PARSE_ARGS_UNKNOWN_OPTION. */
function isUsageError(error: unknown): boolean {
  if (error instanceof UsageError) return true;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_')) return true;
  return ContextError.isInstance(error) && usageErrorCodes.has(error.code);
}
