import type { McpServerRegistry } from '../../index.js';
import {
  type PromptCommandResult,
  parsePromptArguments,
  parsePromptCommand,
  runPromptCommand,
} from '../../prompts.js';
import type { CliCommandRun } from '../cli-command.js';
import type { CliContext } from '../cli-context.js';
import { listEveryPage } from '../list-every-page.js';
import { UsageError } from '../usage-error.js';

/** `mcp-context prompt` (declared, with its options, in ../cli-commands.ts). */
export const runGetPrompt: CliCommandRun = async (context, positionals) => {
  const servers = await context.servers();
  const command = locatePrompt(positionals, servers.serverNames);
  await checkArguments(servers, command.server, command.prompt, command.arguments);
  // The library's own path: arguments checked, prompts/get, messages converted and framed.
  const result = await runPromptCommand(servers, command);
  if (context.json) {
    context.writeJson(result);
    return 0;
  }
  writeMessages(context, result);
  return 0;
};

// --- Internal helpers ---

/**
 * `server name [arguments]`, or the slash-command form `/mcp__server__name [arguments]` that
 * common hosts show (as one word with its arguments, or followed by them). Arguments are
 * key=value words or a JSON object, through the library's one parser.
 */
function locatePrompt(
  positionals: readonly string[],
  serverNames: readonly string[],
): { server: string; prompt: string; arguments: Record<string, string> } {
  const [first, second, ...rest] = positionals;
  if (first === undefined) throw new UsageError('missing <server> <name>');
  if (first.startsWith('/mcp__')) {
    // Server names may contain "_": match a configured name rather than split on the first "__".
    const command = parsePromptCommand(first, { servers: serverNames });
    const more = parsePromptArguments(positionals.slice(1));
    for (const key of Object.keys(more)) {
      if (Object.hasOwn(command.arguments, key)) throw new UsageError(`argument ${key} is given twice`);
    }
    return { ...command, arguments: { ...command.arguments, ...more } };
  }
  if (second === undefined) throw new UsageError('missing <name>');
  return { server: first, prompt: second, arguments: parsePromptArguments(rest) };
}

/** Refuses an unknown prompt or argument before the server sees it, naming what there is. */
async function checkArguments(
  servers: McpServerRegistry,
  server: string,
  name: string,
  args: Record<string, string>,
): Promise<void> {
  const prompts = await listEveryPage(
    (cursor) =>
      servers
        .listPrompts(server, cursor === undefined ? {} : { cursor })
        .then((page) => ({ items: page.prompts, nextCursor: page.nextCursor })),
    () => {},
  );
  const prompt = prompts.find((candidate) => candidate.name === name);
  if (!prompt) {
    throw new UsageError(
      `server "${server}" has no prompt "${name}" (it has: ${prompts.map((item) => item.name).join(', ') || 'none'})`,
    );
  }
  const declared = prompt.arguments ?? [];
  for (const key of Object.keys(args)) {
    if (!declared.some((argument) => argument.name === key)) {
      throw new UsageError(
        `prompt "${name}" takes no argument "${key}" (it takes: ${declared.map((argument) => argument.name).join(', ') || 'none'})`,
      );
    }
  }
}

/** Each message under its role: text as rendered (embedded resources framed), media named. */
function writeMessages(context: CliContext, result: PromptCommandResult): void {
  if (result.description) context.write(`${context.style.dim(result.description)}\n`);
  for (const message of result.messages) {
    const parts = message.content.map((part) =>
      part.type === 'text'
        ? part.text
        : `[${part.part.kind} ${part.part.mimeType}, ${part.part.bytes} bytes]`,
    );
    context.write(`\n${context.style.bold(`── ${message.role} ──`)}\n${parts.join('\n').trimEnd()}\n`);
  }
}
