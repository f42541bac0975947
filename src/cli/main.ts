#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ContextError } from '../index.js';
import { runDemo } from './commands/run-demo.js';
import { serveFixture } from './commands/serve-fixture.js';

const usage = `mcp-context — MCP resources as model context

usage:
  mcp-context demo                       the main job on the bundled GitNexus fixture
  mcp-context fixture serve [--port N]   serve the fixture over Streamable HTTP on 127.0.0.1

exit codes: 0 success, 1 an operation failed, 2 bad usage or config`;

const write = (text: string) => process.stdout.write(text);

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { port: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  const [command, subcommand] = positionals;
  if (values.help || command === undefined) {
    write(`${usage}\n`);
    return values.help ? 0 : 2;
  }
  if (command === 'demo') {
    await runDemo(write);
    return 0;
  }
  if (command === 'fixture' && subcommand === 'serve') {
    const port = Number(values.port ?? 0);
    if (!Number.isInteger(port) || port < 0 || port > 65_535)
      throw usageError(`--port: not a port: ${values.port}`);
    await serveFixture(port, write);
    return 0;
  }
  throw usageError(`unknown command: ${positionals.join(' ')}`);
}

class UsageError extends Error {}

function usageError(message: string): UsageError {
  return new UsageError(message);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const bad =
      error instanceof UsageError || (error as { code?: string })?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION';
    const invalid = ContextError.isInstance(error) && error.code === 'INVALID_OPTION';
    process.stderr.write(`mcp-context: ${error instanceof Error ? error.message : String(error)}\n`);
    if (bad) process.stderr.write(`\n${usage}\n`);
    process.exitCode = bad || invalid ? 2 : 1;
  },
);
