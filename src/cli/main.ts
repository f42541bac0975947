#!/usr/bin/env node
import { ContextError } from '../index.js';
import type { CliCommand } from './cli-command.js';
import { CliContext, defaultConfigPath, defaultStorePath } from './cli-context.js';
import { globalOptions, parseCliArguments } from './cli-options.js';
import { completeCommand } from './commands/complete-argument.js';
import { getPromptCommand } from './commands/get-prompt.js';
import { inspectCommand } from './commands/inspect.js';
import { listPromptsCommand } from './commands/list-prompts.js';
import { listResourcesCommand } from './commands/list-resources.js';
import { listServersCommand } from './commands/list-servers.js';
import { listSkillsCommand } from './commands/list-skills.js';
import { listTemplatesCommand } from './commands/list-templates.js';
import { loginCommand, logoutCommand } from './commands/login.js';
import { pinAddCommand } from './commands/pin-add.js';
import { pinListCommand } from './commands/pin-list.js';
import { pinRemoveCommand } from './commands/pin-remove.js';
import { provideContextCommand } from './commands/provide-context.js';
import { readResourceCommand } from './commands/read-resource.js';
import { demoCommand } from './commands/run-demo.js';
import { fixtureServeCommand } from './commands/serve-fixture.js';
import { describeError } from './describe-error.js';
import { UsageError } from './usage-error.js';

const commands: readonly CliCommand[] = [
  listServersCommand,
  listResourcesCommand,
  listTemplatesCommand,
  readResourceCommand,
  listPromptsCommand,
  getPromptCommand,
  completeCommand,
  listSkillsCommand,
  pinAddCommand,
  pinRemoveCommand,
  pinListCommand,
  provideContextCommand,
  loginCommand,
  logoutCommand,
  inspectCommand,
  fixtureServeCommand,
  demoCommand,
];

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

const globalUsage = `every command takes:
  --config FILE   the config (default ./${defaultConfigPath}; without one, no servers and no bindings)
  --store FILE    the SQLite pin store (default: the config's "store", else ./${defaultStorePath})
  --json          machine-readable output on stdout (errors too, on stderr)
  -h, --help      this text, or one command's usage`;

const usage = `mcp-context — MCP resources as model context

usage: mcp-context <command> [options]

${describeCommands(commands)}

${globalUsage}

exit codes: 0 success, 1 an operation failed, 2 bad usage or config`;

async function main(argv: readonly string[], state: { json: boolean }): Promise<number> {
  const { positionals, values, tokens } = parseCliArguments(argv);
  state.json = values.json === true;
  const command = findCommand(positionals);
  if (!command) {
    if (positionals.length === 0) {
      process.stdout.write(`${usage}\n`);
      return values.help ? 0 : 2;
    }
    // A group's word alone (`pin`, `fixture`): its commands, as help or as a usage error.
    const group = commands.filter((candidate) => candidate.name.startsWith(`${positionals[0]} `));
    if (group.length > 0 && positionals.length === 1) {
      if (!values.help) {
        const words = group.map((candidate) => candidate.name.split(' ')[1]).join(', ');
        throw new UsageError(`${positionals[0]} needs one of: ${words}`);
      }
      process.stdout.write(
        `usage: mcp-context ${positionals[0]} <command> [options]\n\n${describeCommands(group)}\n`,
      );
      return 0;
    }
    throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  }
  if (values.help) {
    process.stdout.write(
      `usage: mcp-context ${command.name} ${command.arguments}\n  ${command.summary}\n\n${globalUsage}\n`,
    );
    return 0;
  }
  const allowed = new Set<string>([...globalOptions, ...command.options]);
  for (const token of tokens) {
    if (token.kind === 'option' && !allowed.has(token.name)) {
      throw new UsageError(`${command.name} takes no --${token.name}`);
    }
  }
  const context = new CliContext(values);
  try {
    return await command.run(context, positionals.slice(command.name.split(' ').length), values);
  } finally {
    await context.close();
  }
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

const state = { json: process.argv.includes('--json') };
main(process.argv.slice(2), state).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const usageProblem = isUsageError(error);
    if (state.json) {
      const facts = describeError(error);
      const details = ContextError.isInstance(error)
        ? { field: error.field, value: error.value, ...(error.limit !== undefined && { limit: error.limit }) }
        : {};
      process.stderr.write(`${JSON.stringify({ error: { ...facts, ...details } })}\n`);
    } else {
      process.stderr.write(`mcp-context: ${error instanceof Error ? error.message : String(error)}\n`);
      if (error instanceof UsageError || (usageProblem && !ContextError.isInstance(error))) {
        process.stderr.write('run mcp-context --help for usage\n');
      }
    }
    process.exitCode = usageProblem ? 2 : 1;
  },
);
