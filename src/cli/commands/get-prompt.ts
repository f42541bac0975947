import type { McpServerRegistry } from '../../index.js';
import type { CliCommand } from '../cli-command.js';
import { listEveryPage } from '../list-every-page.js';
import { parseKeyValues } from '../parse-key-values.js';
import { UsageError } from '../usage-error.js';

export const getPromptCommand: CliCommand = {
  name: 'prompt',
  arguments: '<server> <name> [key=value …]   (or /mcp__<server>__<name> [key=value …])',
  summary: 'get a prompt with arguments and print its messages',
  options: [],
  async run(context, positionals) {
    const servers = await context.servers();
    const { server, name, rest } = locatePrompt(positionals, servers.serverNames);
    const args = parseKeyValues(rest);
    await checkArguments(servers, server, name, args);
    const result = await servers.getPrompt(server, name, args);
    if (context.json) {
      context.writeJson(result);
      return 0;
    }
    if (result.description) context.write(`${context.style.dim(result.description)}\n`);
    for (const message of result.messages) {
      context.write(
        `\n${context.style.bold(`── ${message.role} ──`)}\n${describeContent(message.content)}\n`,
      );
    }
    return 0;
  },
};

// --- Internal helpers ---

/** `server name …`, or the slash-command form `/mcp__server__name …` that common hosts show. */
function locatePrompt(
  positionals: readonly string[],
  serverNames: readonly string[],
): { server: string; name: string; rest: readonly string[] } {
  const [first, second, ...rest] = positionals;
  if (first === undefined) throw new UsageError('missing <server> <name>');
  if (first.startsWith('/mcp__')) {
    const command = first.slice('/mcp__'.length);
    // Server names may contain "_": match a configured name rather than split on the first "__".
    const server = [...serverNames]
      .sort((a, b) => b.length - a.length)
      .find((candidate) => command.startsWith(`${candidate}__`) && command.length > candidate.length + 2);
    if (!server) {
      throw new UsageError(
        `${first} names no configured server (configured: ${serverNames.join(', ') || 'none'})`,
      );
    }
    return { server, name: command.slice(server.length + 2), rest: positionals.slice(1) };
  }
  if (second === undefined) throw new UsageError('missing <name>');
  return { server: first, name: second, rest };
}

/** Refuses unknown and missing arguments before the server sees them, naming them. */
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
  const missing = declared.filter((argument) => argument.required && !(argument.name in args));
  if (missing.length > 0) {
    throw new UsageError(
      `prompt "${name}" needs ${missing.map((argument) => `${argument.name}=…`).join(' ')}`,
    );
  }
}

type PromptContent = Awaited<ReturnType<McpServerRegistry['getPrompt']>>['messages'][number]['content'];

/** Text as text; anything else named, with its size, never decoded. */
function describeContent(content: PromptContent): string {
  switch (content.type) {
    case 'text':
      return content.text;
    case 'image':
    case 'audio':
      return `[${content.type} ${content.mimeType}, ${Math.floor((content.data.length * 3) / 4)} bytes]`;
    case 'resource':
      return 'text' in content.resource
        ? content.resource.text
        : `[resource ${content.resource.uri} ${content.resource.mimeType ?? ''}, binary]`;
    case 'resource_link':
      return `[resource link ${content.uri}]`;
    default:
      return `[${(content as { type: string }).type} content]`;
  }
}
