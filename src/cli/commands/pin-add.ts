import { ContextError, type PinInput } from '../../index.js';
import { parsePromptArguments } from '../../prompts.js';
import type { CliCommandRun } from '../cli-command.js';
import type { CliContext } from '../cli-context.js';
import { parseIntegerOption } from '../cli-options.js';
import { describeScope, describeTarget } from '../describe-pin.js';
import { requirePositionals } from '../require-positionals.js';
import { scopeFromOptions } from '../scope-from-options.js';
import { UsageError } from '../usage-error.js';

/** `mcp-context pin add` (declared, with its options, in ../cli-commands.ts). */
export const runPinAdd: CliCommandRun = async (context, positionals, values) => {
  const scope = scopeFromOptions(values);
  const [server, target] = requirePositionals(positionals, ['server', 'uri'] as const, { rest: true });
  const rest = positionals.slice(2);
  const isTemplate = target.includes('{');
  if (!isTemplate && rest.length > 0) {
    throw new UsageError(`key=value arguments go with a template uri (got ${JSON.stringify(rest[0])})`);
  }
  const maxTokens = parseIntegerOption('max-tokens', values['max-tokens'], { min: 1 });
  const priority = parseIntegerOption('priority', values.priority, { min: -1000, max: 1000 });
  const config = await context.config();
  const configured = Object.keys(config.mcpServers);
  // The pin store does not know the servers; the config does. A typo is caught now, not on a later turn.
  if (configured.length > 0 && !configured.includes(server)) {
    throw new ContextError(
      'UNKNOWN_SERVER',
      `no MCP server named "${server}" is configured (configured: ${configured.join(', ')})`,
      { field: 'server', value: server },
    );
  }
  const input = {
    scope,
    server,
    ...(isTemplate ? { template: target, arguments: parsePromptArguments(rest) } : { uri: target }),
    ...(maxTokens !== undefined && { maxTokens }),
    ...(priority !== undefined && { priority }),
    ...(values['ignore-audience'] === true && { ignoreAudience: true }),
    ...(values.skill === true && { skill: true }),
  } as PinInput;
  const store = await context.store();
  const pin = await store.pin(input).catch(async (error: unknown) => {
    if (ContextError.isInstance(error) && error.code === 'TEMPLATE_ARGUMENT_MISSING' && 'template' in input) {
      await suggestValues(
        context,
        server,
        input.template,
        error.field?.replace(/^arguments\./, ''),
        input.arguments,
      );
    }
    throw error;
  });
  if (context.json) context.writeJson(pin);
  else
    context.write(`pinned ${pin.id}  ${describeScope(pin.scope)}  ${pin.server}  ${describeTarget(pin)}\n`);
  return 0;
};

// --- Internal helpers ---

/**
 * A template pin missing an argument: the server's candidates for it (completion/complete, with the
 * arguments given so far as context), on stderr beside the error. When the server cannot say, that
 * is said too.
 */
async function suggestValues(
  context: CliContext,
  server: string,
  template: string,
  argument: string | undefined,
  given: Readonly<Record<string, string | readonly string[]>>,
): Promise<void> {
  // --json keeps stderr to one JSON document: the candidates are for a person at a terminal.
  if (argument === undefined || context.json) return;
  const chosen = Object.fromEntries(
    Object.entries(given).flatMap(([name, value]) => (typeof value === 'string' ? [[name, value]] : [])),
  );
  try {
    const servers = await context.servers();
    const { values } = await servers.complete(server, {
      template,
      argument,
      ...(Object.keys(chosen).length > 0 && { context: chosen }),
    });
    context.writeError(
      values.length > 0
        ? `candidates for ${argument}: ${values.join(', ')}\n`
        : `the server offers no candidates for ${argument}\n`,
    );
  } catch (error) {
    context.writeError(
      `no candidates for ${argument}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  }
}
